import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { nanoidBody, uuidBody, uuidInspectBody } from '../../ops/id/schema.ts'
import { defineRoute } from '../define-route.ts'

const uuidResult = z.object({ uuids: z.array(z.string()) })

const inspectResult = z.object({
  valid: z
    .boolean()
    .describe('RFC 9562 validity: the Nil or Max UUID, or the RFC variant with a defined version (1–8)'),
  normalized: z.string().describe('Lower-case 8-4-4-4-12'),
  input_format: z.enum(['standard', 'compact', 'urn', 'braced']),
  variant: z.enum(['ncs', 'rfc9562', 'microsoft', 'future']).describe('From the leading bits of octet 8'),
  version: z.number().int().nullable().describe('The version field; null when not the RFC 9562 variant'),
  special: z.enum(['nil', 'max']).nullable(),
  description: z.string(),
  timestamp: z.string().optional().describe('v1, v6, v7: the embedded time, ISO 8601 UTC'),
  unix_ms: z.number().int().optional().describe('v7: the 48-bit Unix millisecond timestamp'),
  clock_sequence: z.number().int().optional().describe('v1, v6: the 14-bit clock sequence'),
  node: z.string().optional().describe('v1, v6: the 48-bit node, as aa:bb:cc:dd:ee:ff'),
})

const nanoidResult = z.object({ ids: z.array(z.string()) })

export async function idRoutes(app: FastifyInstance): Promise<void> {
  defineRoute(app, {
    method: 'POST',
    url: '/v1/id/uuid',
    security: 'apiKey',
    family: 'id',
    operationId: 'generateUuids',
    summary: 'Generate UUIDs (v1, v3, v4, v5, v6, v7)',
    description:
      'Random (v4, the default), time-ordered (v7: strictly increasing within one request; v1, v6) or ' +
      'name-based (v3, v5: deterministic, one at a time, with a `namespace` and a `name`), up to 1000 at ' +
      'once, in the spelling `format` asks for. A v3/v5 request without its namespace or name is 400 ' +
      'ERR_VALIDATION naming the field; a namespace that is neither a UUID nor dns, url, oid or x500 is 400 ' +
      'ERR_INVALID_UUID.',
    tags: ['IDs'],
    body: uuidBody,
    response: uuidResult,
    errors: ['ERR_INVALID_UUID', 'ERR_INVALID_ENCODING'],
    op: 'id.uuid',
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/id/uuid/inspect',
    security: 'apiKey',
    family: 'id',
    operationId: 'inspectUuid',
    summary: 'Decode a UUID: variant, version, embedded time',
    description:
      'A string that is not spelled like a UUID is refused with ERR_INVALID_UUID and the position of the first ' +
      'bad character. Anything spelled like one answers 200, with `valid` saying whether RFC 9562 defines it.',
    tags: ['IDs'],
    body: uuidInspectBody,
    response: inspectResult,
    errors: ['ERR_INVALID_UUID'],
    op: 'id.uuid.inspect',
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/id/nanoid',
    security: 'apiKey',
    family: 'id',
    operationId: 'generateNanoids',
    summary: 'Generate Nano IDs',
    description:
      'Random ids of `size` characters (default 21) from `alphabet` (default the URL-safe A-Za-z0-9_-), up ' +
      'to 1000 at once. Every character of the alphabet is equally likely (no modulo bias). An alphabet with ' +
      'a repeated character is 400 ERR_VALIDATION; one with a lone surrogate, 400 ERR_INVALID_ENCODING.',
    tags: ['IDs'],
    body: nanoidBody,
    response: nanoidResult,
    errors: ['ERR_INVALID_ENCODING'],
    op: 'id.nanoid',
  })
}
