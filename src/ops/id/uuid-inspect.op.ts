import { defineOp } from '../define.ts'
import { BODY_PARSE_COST, bounded } from '../worst-case.ts'
import { uuidInspectBody, uuidInspectResult } from './schema.ts'
import { inspectUuid } from './uuid-inspect.ts'

export default defineOp({
  name: 'id.uuid.inspect',
  family: 'id',
  http: {
    path: '/v1/id/uuid/inspect',
    operationId: 'inspectUuid',
    summary: 'Decode a UUID: variant, version, embedded time',
    description:
      'A string that is not spelled like a UUID is refused with ERR_INVALID_UUID and the position of the first ' +
      'bad character. Anything spelled like one answers 200, with `valid` saying whether RFC 9562 defines it.',
    errors: ['ERR_INVALID_UUID'],
  },
  body: uuidInspectBody,
  response: uuidInspectResult,
  run: inspectUuid,
  cost: BODY_PARSE_COST,
  worst: (bytes) => bounded({ uuid: '2ed6657d-e927-568b-95e1-2665a8aea6a2' }, bytes),
  examples: [
    {
      summary: 'Decode a UUID (RFC 9562 Appendix A.6, version 7)',
      body: { uuid: '017F22E2-79B0-7CC3-98C4-DC0C0C07398F' },
      data: {
        valid: true,
        normalized: '017f22e2-79b0-7cc3-98c4-dc0c0c07398f',
        input_format: 'standard',
        variant: 'rfc9562',
        special: null,
        version: 7,
        description: 'version 7: Unix Epoch time-based',
        timestamp: '2022-02-22T19:22:22.000Z',
        unix_ms: 1645557742000,
      },
    },
  ],
})
