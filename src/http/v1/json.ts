import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { formatBody, formatQuery, formatResult } from '../../ops/json/format/schema.ts'
import type { JsonFormatOptions } from '../../ops/json/format/types.ts'
import { patchBody } from '../../ops/json/patch/schema.ts'
import { declaredLength, sendStreamEnvelope, sendTransformed } from '../body/stream-transform.ts'
import { defineRoute } from '../define-route.ts'

export const patchResult = z.object({
  result: z.unknown().describe('The patched document'),
})

// A raw body is formatted as it arrives, on a thread of the plan's pool: answered raw, the output streams
// back at constant memory up to the plan's binary limit; answered as JSON, it is one string, held and put
// in its envelope on the thread (sendStreamEnvelope).
function formatJob(options: JsonFormatOptions, raw: boolean, request: FastifyRequest) {
  const expected = declaredLength(request)
  return {
    kind: 'json.format' as const,
    options: {
      ...options,
      warnings: !raw,
      buffered: !raw,
      ...(expected !== undefined ? { expected_bytes: expected } : {}),
    },
  }
}

export async function jsonRoutes(app: FastifyInstance): Promise<void> {
  defineRoute(app, {
    method: 'POST',
    url: '/v1/json/format',
    security: 'apiKey',
    family: 'json',
    op: 'json.format',
    binary: true,
    binaryResponse: true,
    operationId: 'formatJson',
    summary: 'Pretty-print or minify JSON, losslessly',
    description:
      'The text is validated strictly (RFC 8259) and re-emitted token by token: numbers such as ' +
      '12345678901234567890, 1.0, -0 or 1e400 and string escapes come out exactly as written. Invalid JSON ' +
      'is refused with ERR_INVALID_JSON and details {line, column, offset, reason}. Also takes the JSON text ' +
      'as a raw application/octet-stream body (UTF-8; options from the query string; errors add byte_offset), ' +
      'formatted as it arrives, and answers the raw output bytes for Accept: application/octet-stream ' +
      "(warnings are then not sent): raw in and raw out streams at constant memory up to the plan's binary " +
      'limit, while a raw body answered as JSON may be at most 100 MiB. A streamed answer commits its 200 after ' +
      'the first MiB of output: an error found later (invalid JSON deep in a large body) breaks the answer off ' +
      '(connection reset on HTTP/1.1, RST_STREAM on HTTP/2) instead of ending it normally. With sort_keys, each ' +
      'outermost object is held in memory until it closes (one needing more than 256 MiB is refused with ' +
      'ERR_COMPUTE_LIMIT {limit: "sorted_object"}). Output larger than 64 MiB and 4x the input (256 MiB at most ' +
      'when answered as JSON) is refused with ERR_COMPUTE_LIMIT {limit: "output_size", max_bytes}, as is ' +
      'nesting deeper than 16,777,216 levels {limit: "depth"}.',
    tags: ['JSON'],
    querystring: formatQuery,
    body: formatBody,
    response: formatResult,
    errors: ['ERR_INVALID_JSON', 'ERR_COMPUTE_LIMIT'],
    adds: ({ octets }) => ({ octets }),
    stream: async function formatJsonStream({ body, query, request, reply, octets: raw }) {
      if (!raw) return sendStreamEnvelope(request, reply, body, formatJob(query, false, request))
      return sendTransformed(request, reply, body, formatJob(query, true, request))
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/json/patch',
    security: 'apiKey',
    family: 'json',
    operationId: 'patchJson',
    summary: 'Apply an RFC 6902 JSON Patch',
    description:
      'add, remove, replace, move, copy and test, with RFC 6901 pointers. A failed test is ERR_PATCH_TEST_FAILED ' +
      '{index, path}; a malformed operation or a path that does not exist is ERR_INVALID_PATCH {index, op, path, ' +
      'from?, reason}. The document is never partially patched. Numbers are exact: every number comes back ' +
      'as sent (12345678901234567890, 1.50, 1E400 untouched), and test compares them by exact decimal value ' +
      '(1.0 equals 1).',
    tags: ['JSON'],
    op: 'json.patch',
    body: patchBody,
    response: patchResult,
    errors: ['ERR_INVALID_PATCH', 'ERR_PATCH_TEST_FAILED', 'ERR_COMPUTE_LIMIT'],
  })
}
