import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { algorithmField, hmacBody, hmacVerifyBody } from '../../ops/hmac/schema.ts'
import { HMAC_ALGORITHMS } from '../../ops/hmac/types.ts'
import { DIGEST_ENCODINGS } from '../../ops/types.ts'
import { defineRoute } from '../define-route.ts'

const hmacResult = z.object({
  algorithm: z
    .enum(HMAC_ALGORITHMS as [string, ...string[]])
    .meta({ id: 'HmacAlgorithm', description: 'The hash function, by its canonical (lower-case) name' }),
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
    op: 'hmac.verify',
    operationId: 'verifyHmac',
    summary: 'Check an HMAC in constant time',
    description:
      'A digest that decodes but has the wrong length is simply {valid: false}; one that does not decode in ' +
      'digest_encoding is a 400 ERR_INVALID_ENCODING pointing at it.',
    tags: ['HMAC'],
    body: hmacVerifyBody,
    response: verifyResult,
    errors: ['ERR_UNSUPPORTED_ALGORITHM', 'ERR_INVALID_ENCODING'],
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/hmac/:algorithm',
    security: 'apiKey',
    family: 'hmac',
    op: 'hmac',
    operationId: 'hmac',
    summary: 'Compute an HMAC',
    description:
      'RFC 2104 HMAC over the bytes of input with the bytes of key. Text is taken as UTF-8, never normalized.',
    tags: ['HMAC'],
    params: z.object({ algorithm: algorithmField }),
    body: hmacBody,
    response: hmacResult,
    errors: ['ERR_UNSUPPORTED_ALGORITHM', 'ERR_INVALID_ENCODING'],
    // the algorithm joins the body from the path, inline or on the worker
    adds: ({ params }) => ({ with: { algorithm: params.algorithm } }),
  })
}
