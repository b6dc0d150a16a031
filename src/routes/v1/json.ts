import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { isReadable, wantsOctets } from '../../lib/stream-digest.ts'
import {
  type ChunkStep,
  collectTransformed,
  declaredLength,
  sendTransformed,
} from '../../lib/stream-transform.ts'
import { FORMAT_MODES, type JsonFormatOptions, type JsonFormatResult } from '../../ops/json-format.ts'
import { patchBody } from '../../ops/json-patch-schema.ts'
import {
  createJsonStream,
  endJsonStream,
  jsonStreamWarnings,
  writeJsonStream,
} from '../../ops/json-stream.ts'
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

export const formatBody = z.object({
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

const patchResult = z.object({
  result: z.unknown().describe('The patched document'),
})

// A raw body is formatted as it arrives: answered raw, the output streams back at constant memory up to
// the plan's binary limit; answered as JSON, it is one string (see collectTransformed).
function formatStep(options: JsonFormatOptions, raw: boolean, request: FastifyRequest) {
  const stream = createJsonStream({
    ...options,
    warnings: !raw,
    buffered: !raw,
    expected_bytes: declaredLength(request),
  })
  const step: ChunkStep = {
    write: (chunk) => writeJsonStream(stream, chunk),
    end: () => endJsonStream(stream),
  }
  return { stream, step }
}

async function formatToJson(
  request: FastifyRequest,
  body: NodeJS.ReadableStream,
  options: JsonFormatOptions,
): Promise<JsonFormatResult> {
  const { stream, step } = formatStep(options, false, request)
  const output = await collectTransformed(request, body, step)
  const result: JsonFormatResult = { output: output.toString('utf8'), bytes: output.length }
  const warnings = jsonStreamWarnings(stream)
  if (warnings) result.warnings = warnings
  return result
}

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
    handler: async function formatJsonHandler({ body, query, request, reply, run }) {
      const raw = wantsOctets(request.headers.accept)
      if (isReadable(body)) {
        if (!raw) return formatToJson(request, body, query)
        return sendTransformed(request, reply, body, formatStep(query, true, request).step)
      }
      const result = await run('json.format', body)
      if (raw) return reply.type('application/octet-stream').send(Buffer.from(result.output, 'utf8'))
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
