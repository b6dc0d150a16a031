import type { FastifyInstance } from 'fastify'
import type { RawOptions } from '../../exec/dispatch.ts'
import {
  decodeBody,
  decodeQuery,
  decodeResult,
  encodeBody,
  encodeQuery,
  encodeResult,
} from '../../ops/base64/schema.ts'
import { sendStreamEnvelope, sendTransformed } from '../body/stream-transform.ts'
import { defineRoute } from '../define-route.ts'

// A raw-bytes answer asks the op for Base64 (the registry's octets turn it into bytes where it ran).
function decodeOptions(raw: boolean): RawOptions & { with?: { output_encoding: 'base64' } } {
  return raw ? { with: { output_encoding: 'base64' }, octets: true } : {}
}

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
    adds: ({ octets }) => ({ octets }),
    stream: async function base64EncodeStream({ body, query, request, reply, octets: raw }) {
      const job = {
        kind: 'base64.encode' as const,
        variant: query.variant,
        ...(query.padding !== undefined ? { padding: query.padding } : {}),
      }
      if (raw) return sendTransformed(request, reply, body, job)
      return sendStreamEnvelope(request, reply, body, job)
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
    adds: ({ octets }) => decodeOptions(octets),
    stream: async function base64DecodeStream({ body, query, request, reply, octets: raw }) {
      const job = { kind: 'base64.decode' as const, variant: query.variant, strict: query.strict }
      if (raw) return sendTransformed(request, reply, body, job)
      return sendStreamEnvelope(request, reply, body, { ...job, output_encoding: query.output_encoding })
    },
  })
}
