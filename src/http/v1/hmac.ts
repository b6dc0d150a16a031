import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { BYTE_ENCODINGS, DIGEST_ENCODINGS } from '../../ops/encoding.ts'
import { HMAC_ALGORITHMS } from '../../ops/hmac/hmac.ts'
import { defineRoute } from '../define-route.ts'

const algorithmField = z
  .string()
  .max(64)
  .describe(`Hash function, case-insensitive: ${HMAC_ALGORITHMS.join(', ')}`)

const macFields = {
  input: z.string().describe('The message, in input_encoding'),
  key: z.string().describe('The secret key, in key_encoding. Never logged or echoed back'),
  input_encoding: z.enum(BYTE_ENCODINGS).default('utf8'),
  key_encoding: z.enum(BYTE_ENCODINGS).default('utf8'),
}

const hmacBody = z.strictObject({ ...macFields, output_encoding: z.enum(DIGEST_ENCODINGS).default('hex') })

const verifyBody = z.strictObject({
  algorithm: algorithmField,
  ...macFields,
  digest: z.string().describe('The expected MAC, in digest_encoding'),
  digest_encoding: z
    .enum(DIGEST_ENCODINGS)
    .default('hex')
    .describe('Encoding of digest (hex is case-insensitive)'),
})

const hmacResult = z.object({
  algorithm: z.string().describe('Canonical (lower-case) algorithm name'),
  digest: z.string(),
  output_encoding: z.enum(DIGEST_ENCODINGS),
})

const verifyResult = z.object({
  valid: z.boolean().describe('True when digest equals the HMAC; compared in constant time'),
})

export async function hmacRoutes(app: FastifyInstance): Promise<void> {
  // A static segment outranks a parameter in Fastify's router, so /verify is never read as an algorithm.
  defineRoute(app, {
    method: 'POST',
    url: '/v1/hmac/verify',
    security: 'apiKey',
    family: 'hmac',
    operationId: 'verifyHmac',
    summary: 'Check an HMAC in constant time',
    description:
      'A digest that decodes but has the wrong length is simply {valid: false}; one that does not decode in ' +
      'digest_encoding is a 400 ERR_INVALID_ENCODING pointing at it.',
    tags: ['HMAC'],
    body: verifyBody,
    response: verifyResult,
    errors: ['ERR_UNSUPPORTED_ALGORITHM', 'ERR_INVALID_ENCODING'],
    handler: function verifyHmacHandler({ body, run }) {
      return run('hmac.verify', body)
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/hmac/:algorithm',
    security: 'apiKey',
    family: 'hmac',
    operationId: 'hmac',
    summary: 'Compute an HMAC',
    description:
      'RFC 2104 HMAC over the bytes of input with the bytes of key. Text is taken as UTF-8, never normalized.',
    tags: ['HMAC'],
    params: z.object({ algorithm: algorithmField }),
    body: hmacBody,
    response: hmacResult,
    errors: ['ERR_UNSUPPORTED_ALGORITHM', 'ERR_INVALID_ENCODING'],
    handler: function hmacHandler({ body, params, run }) {
      return run('hmac', { ...body, algorithm: params.algorithm })
    },
  })
}
