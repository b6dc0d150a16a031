import { defineOp } from '../define.ts'
import { BODY_PARSE_COST, bounded } from '../worst-case.ts'
import { uuidBody, uuidResult } from './schema.ts'
import { generateUuids } from './uuid.ts'

// inline up to this many (measured: 1,000 v7 UUIDs take 11 ms)
const INLINE_UUIDS = 50

export default defineOp({
  name: 'id.uuid',
  family: 'id',
  http: {
    path: '/v1/id/uuid',
    operationId: 'generateUuids',
    summary: 'Generate UUIDs (v1, v3, v4, v5, v6, v7)',
    description:
      'Random (v4, the default), time-ordered (v7: strictly increasing within one request; v1, v6) or ' +
      'name-based (v3, v5: deterministic, one at a time, with a `namespace` and a `name`), up to 1000 at ' +
      'once, in the spelling `format` asks for. A v3/v5 request without its namespace or name is 400 ' +
      'ERR_VALIDATION naming the field; a namespace that is neither a UUID nor dns, url, oid or x500 is 400 ' +
      'ERR_INVALID_UUID.',
    errors: ['ERR_INVALID_UUID', 'ERR_INVALID_ENCODING'],
  },
  body: uuidBody,
  response: uuidResult,
  run: generateUuids,
  cost: { ...BODY_PARSE_COST, heavy: (input) => (input.count ?? 1) > INLINE_UUIDS },
  worst: (bytes) => bounded({ version: 7 as const, count: 1000 }, bytes),
  examples: [
    {
      summary: 'A name-based UUID (RFC 9562 Appendix A.4: version 5, DNS namespace, "www.example.com")',
      body: { version: 5, namespace: 'dns', name: 'www.example.com' },
      data: { uuids: ['2ed6657d-e927-568b-95e1-2665a8aea6a2'] },
    },
    {
      summary:
        'Three time-ordered UUIDs (version 7; strictly increasing within one request), such as ' +
        "`01a202e9-589e-75da-af04-f2c149b0d3f1` (“…” in an example's answer stands for a value that differs on " +
        'every call)',
      body: { version: 7, count: 3 },
      data: { uuids: ['…', '…', '…'] },
    },
  ],
})
