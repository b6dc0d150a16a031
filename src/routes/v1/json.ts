import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { readBody } from '../../lib/read-body.ts'
import { isReadable, wantsOctets } from '../../lib/stream-digest.ts'
import {
  FORMAT_MODES,
  formatJson,
  formatJsonBytes,
  type JsonFormatResult,
  MAX_FORMAT_INPUT_BYTES,
} from '../../ops/json-format.ts'
import { MAX_PATCH_DEPTH } from '../../ops/json-patch.ts'
import { PATCH_OPS } from '../../ops/json-patch-ops.ts'
import { defineRoute } from '../define.ts'

const mode = z
  .enum(FORMAT_MODES)
  .default('pretty')
  .describe('"pretty": one value per line, indented; "minify": no whitespace at all')
const indentDescription =
  'Spaces per level (0–8; 0 puts every value on its own line without indentation) or "\\t" for tabs; pretty only'
const sortKeysDescription =
  'Sort object members by key in Unicode code point order (integer-like keys are strings too); members ' +
  'with the same key keep their order'

const formatBody = z.object({
  input: z
    .string()
    .describe(
      'The JSON text to format, as a string (RFC 8259; any top-level value). Numbers, escapes, key order ' +
        'and duplicate keys are kept exactly as written',
    ),
  mode,
  indent: z
    .union([z.number().int().min(0).max(8), z.literal('\t')])
    .default(2)
    .describe(indentDescription),
  sort_keys: z.boolean().default(false).describe(sortKeysDescription),
})

const formatQuery = z.object({
  mode,
  indent: z
    .union([
      z.literal('\t'),
      z
        .string()
        .regex(/^[0-8]$/)
        .transform(Number),
    ])
    .default(2)
    .describe(indentDescription),
  sort_keys: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe(sortKeysDescription),
})

const warning = z.object({
  code: z
    .enum(['duplicate_key', 'byte_order_mark', 'more_duplicate_keys'])
    .describe(
      'duplicate_key: a key repeated within one object (kept in the output); byte_order_mark: a leading BOM, dropped; more_duplicate_keys: how many duplicates past the first 100 are not listed',
    ),
  message: z.string(),
  key: z.string().optional().describe('The repeated key, decoded'),
  line: z.number().int().describe('1-based line of the input'),
  column: z.number().int().describe('1-based column, in UTF-16 code units'),
  offset: z.number().int().describe('0-based offset into the input, in UTF-16 code units'),
})

const formatResult = z.object({
  output: z.string().describe('The formatted JSON text'),
  bytes: z.number().int().describe('Length of output in UTF-8 bytes'),
  warnings: z.array(warning).optional().describe('Present when the input had duplicate keys or a BOM'),
})

const patchBody = z.object({
  document: z
    .unknown()
    .describe(`The JSON document to patch: any JSON value, nested at most ${MAX_PATCH_DEPTH} levels`),
  patch: z
    .array(
      z
        .unknown()
        .describe(
          `An RFC 6902 operation {op, path, from?, value?}: op is one of ${PATCH_OPS.join(', ')}; path and ` +
            'from are RFC 6901 JSON Pointers ("~1" for "/", "~0" for "~", "-" appends to an array); value is ' +
            'required by add, replace and test; from by move and copy',
        ),
    )
    .describe(
      'RFC 6902 JSON Patch, applied in order and atomically: if any operation fails, nothing is applied. ' +
        'Operations are checked by the service (not by the schema) so that a bad one is reported as ' +
        'ERR_INVALID_PATCH with its index',
    ),
})

const patchResult = z.object({
  result: z.unknown().describe('The patched document'),
})

export async function jsonRoutes(app: FastifyInstance): Promise<void> {
  defineRoute(app, {
    method: 'POST',
    url: '/v1/json/format',
    family: 'json',
    binary: true,
    binaryResponse: true,
    operationId: 'formatJson',
    summary: 'Pretty-print or minify JSON, losslessly',
    description:
      'The text is validated strictly (RFC 8259) and re-emitted token by token: numbers such as ' +
      '12345678901234567890, 1.0, -0 or 1e400 and string escapes come out exactly as written. Invalid JSON ' +
      'is refused with ERR_INVALID_JSON and details {line, column, offset, reason}. Also takes the JSON text ' +
      "as a raw application/octet-stream body (UTF-8, at most the plan's binary limit and 100 MiB; options from " +
      'the query string; errors add byte_offset), ' +
      'and answers the raw output bytes for Accept: application/octet-stream (warnings are then not sent). ' +
      'A pretty output that would pass 64 Mi characters (or 4x a larger input) is refused with ERR_COMPUTE_LIMIT.',
    tags: ['JSON'],
    querystring: formatQuery,
    body: formatBody,
    response: formatResult,
    errors: ['ERR_INVALID_JSON', 'ERR_COMPUTE_LIMIT'],
    handler: async function formatJsonHandler({ body, query, request, reply }) {
      let result: JsonFormatResult
      if (isReadable(body)) {
        const limit = Math.min(request.bodyLimit, MAX_FORMAT_INPUT_BYTES)
        result = formatJsonBytes({ ...query, input: await readBody(body, limit) })
      } else {
        result = formatJson(body)
      }
      if (wantsOctets(request.headers.accept)) {
        return reply.type('application/octet-stream').send(Buffer.from(result.output, 'utf8'))
      }
      return result
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/json/patch',
    family: 'json',
    operationId: 'patchJson',
    summary: 'Apply an RFC 6902 JSON Patch',
    description:
      'add, remove, replace, move, copy and test, with RFC 6901 pointers. A failed test is ERR_PATCH_TEST_FAILED ' +
      '{index, path}; a malformed operation or a path that does not exist is ERR_INVALID_PATCH {index, op, path, ' +
      'from?, reason}. The document is never partially patched.',
    tags: ['JSON'],
    body: patchBody,
    response: patchResult,
    errors: ['ERR_INVALID_PATCH', 'ERR_PATCH_TEST_FAILED', 'ERR_COMPUTE_LIMIT'],
    handler: function patchJsonHandler({ body, run }) {
      return run('json.patch', { document: body.document, patch: body.patch })
    },
  })
}
