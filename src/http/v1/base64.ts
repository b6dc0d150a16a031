import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { describeDecoded } from '../../ops/base64/stream.ts'
import { BASE64_VARIANTS, DECODE_VARIANTS } from '../../ops/base64/types.ts'
import { BYTE_ENCODINGS } from '../../ops/types.ts'
import { streamedBody, wantsOctets } from '../body/stream-digest.ts'
import { collectTransformed, sendTransformed } from '../body/stream-transform.ts'
import { defineRoute } from '../define-route.ts'

const variant = z
  .enum(BASE64_VARIANTS)
  .default('standard')
  .describe('Alphabet: "standard" (RFC 4648 §4, + and /) or "url" (RFC 4648 §5, - and _)')
const padding = z
  .boolean()
  .optional()
  .describe("Append '=' padding; default true for the standard alphabet, false for url")
const decodeVariant = z
  .enum(DECODE_VARIANTS)
  .default('auto')
  .describe('Alphabet of the input; "auto" detects it (mixing + / with - _ is refused)')
const outputEncoding = z
  .enum(BYTE_ENCODINGS)
  .default('utf8')
  .describe('How to return the decoded bytes; utf8 replaces invalid sequences with U+FFFD')
const strict = z
  .boolean()
  .default(false)
  .describe(
    'Refuse whitespace, missing or partial padding (standard alphabet; url may omit padding) and non-zero ' +
      'trailing bits; otherwise they are tolerated',
  )

function queryBool(description: string) {
  return z.enum(['true', 'false']).describe(description)
}

const encodeBody = z.strictObject({
  input: z.string().describe('The data to encode, in input_encoding'),
  input_encoding: z.enum(BYTE_ENCODINGS).default('utf8'),
  variant,
  padding,
})

const encodeQuery = z.strictObject({
  variant,
  padding: queryBool(padding.description!)
    .transform((v) => v === 'true')
    .optional(),
})

const encodeResult = z.object({
  output: z.string().describe('The Base64 text'),
  variant: z.enum(BASE64_VARIANTS),
})

const decodeBody = z.strictObject({
  input: z.string().describe('The Base64 or base64url text'),
  variant: decodeVariant,
  output_encoding: outputEncoding,
  strict,
})

const decodeQuery = z.strictObject({
  variant: decodeVariant,
  output_encoding: outputEncoding,
  strict: queryBool(strict.description!)
    .default('false')
    .transform((v) => v === 'true'),
})

const decodeResult = z.object({
  output: z.string().describe('The decoded bytes in output_encoding'),
  output_encoding: z.enum(BYTE_ENCODINGS),
  bytes: z.number().int().describe('Number of decoded bytes'),
  valid_utf8: z.boolean().describe('Whether the decoded bytes are well-formed UTF-8'),
  variant: z.enum(BASE64_VARIANTS).describe('The alphabet used (detected when variant was auto)'),
})

// Raw bodies are encoded and decoded as they arrive, on a thread of the plan's pool
// (src/exec/stream-run.ts): a raw answer streams back at constant memory up to the plan's binary limit, a
// JSON answer holds the whole output.
export async function base64Routes(app: FastifyInstance): Promise<void> {
  defineRoute(app, {
    method: 'POST',
    url: '/v1/base64/encode',
    security: 'apiKey',
    family: 'base64',
    op: 'base64.encode',
    binary: true,
    binaryResponse: true,
    operationId: 'base64Encode',
    summary: 'Encode text or bytes as Base64',
    description:
      'JSON body, or raw application/octet-stream bytes (options from the query string), encoded as they ' +
      'arrive. Send Accept: application/octet-stream to get the Base64 text as the raw body, streamed at ' +
      "constant memory up to the plan's binary limit; a raw body answered as JSON may be at most 100 MiB. " +
      'A streamed answer whose body breaks a limit after the first MiB of output is broken off (connection ' +
      'reset on HTTP/1.1, RST_STREAM on HTTP/2) instead of ending normally.',
    tags: ['Base64'],
    querystring: encodeQuery,
    body: encodeBody,
    response: encodeResult,
    errors: ['ERR_INVALID_ENCODING'],
    handler: async function base64EncodeHandler({ body, query, request, reply, run }) {
      const raw = wantsOctets(request.headers.accept)
      const streamed = streamedBody(request, body)
      if (streamed) {
        const job = {
          kind: 'base64.encode' as const,
          variant: query.variant,
          ...(query.padding !== undefined ? { padding: query.padding } : {}),
        }
        if (raw) return sendTransformed(request, reply, streamed, job)
        const { output } = await collectTransformed(request, reply, streamed, job)
        return { output: output.toString('latin1'), variant: query.variant }
      }
      const result = await run('base64.encode', body)
      if (raw) return reply.type('application/octet-stream').send(Buffer.from(result.output, 'latin1'))
      return result
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/base64/decode',
    security: 'apiKey',
    family: 'base64',
    op: 'base64.decode',
    binary: true,
    binaryResponse: true,
    operationId: 'base64Decode',
    summary: 'Decode Base64 or base64url',
    description:
      'JSON body, or the Base64 text as a raw application/octet-stream body (options from the query ' +
      'string; error positions are then byte offsets), decoded as it arrives. Send Accept: ' +
      'application/octet-stream to get the decoded bytes as the raw body, streamed at constant memory up to the ' +
      "plan's binary limit; a raw body answered as JSON may be at most 100 MiB. Errors found before the first " +
      'MiB of output are answered with their status; a later one (e.g. a bad character deep in a large body) ' +
      'breaks the answer off (connection reset on HTTP/1.1, RST_STREAM on HTTP/2) instead of ending it normally.',
    tags: ['Base64'],
    querystring: decodeQuery,
    body: decodeBody,
    response: decodeResult,
    errors: ['ERR_INVALID_BASE64'],
    handler: async function base64DecodeHandler({ body, query, request, reply, run }) {
      const raw = wantsOctets(request.headers.accept)
      const streamed = streamedBody(request, body)
      if (streamed) {
        const job = { kind: 'base64.decode' as const, variant: query.variant, strict: query.strict }
        if (raw) return sendTransformed(request, reply, streamed, job)
        const { output, result } = await collectTransformed(request, reply, streamed, job)
        return describeDecoded(output, result.variant!, query.output_encoding)
      }
      if (!raw) return run('base64.decode', body)
      // the bytes cross back from the pool as Base64 (a string): turning them into a Buffer is native work
      const decoded = await run('base64.decode', { ...body, output_encoding: 'base64' })
      return reply.type('application/octet-stream').send(Buffer.from(decoded.output, 'base64'))
    },
  })
}
