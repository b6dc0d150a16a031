import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { jwtDecodeBody, jwtInspectBody, jwtSignBody, jwtVerifyBody } from '../../ops/jwt/schema.ts'
import { INSPECT_WARNING_CODES, VERIFY_REASON_CODES } from '../../ops/jwt/types.ts'
import { defineRoute } from '../define-route.ts'

const decodeResult = z.object({
  header: z.record(z.string(), z.unknown()),
  payload: z
    .union([z.record(z.string(), z.unknown()), z.string()])
    .describe('The claims object, or the payload as text/base64url when it is not a JSON object'),
  payload_format: z
    .enum(['json', 'text', 'base64url'])
    .describe(
      'json: a JSON object; text: UTF-8 that is not a JSON object; base64url: bytes that are not UTF-8',
    ),
  signature: z.string().describe('The signature segment, base64url'),
  signed_part: z.string().describe('header.payload, the bytes the signature covers'),
})

const claimTime = z
  .object({ value: z.number(), iso: z.string().nullable(), relative: z.string() })
  .nullable()
  .describe('null when the claim is absent or not a NumericDate')

const inspectResult = decodeResult.extend({
  at: z.string().describe('The reference time used, ISO 8601'),
  algorithm: z
    .string()
    .describe(
      'The token\'s "alg" header as written, whatever it is (warnings say when Anvil cannot verify it)',
    ),
  key_id: z.string().nullable(),
  type: z.string().nullable(),
  claims: z.object({ iat: claimTime, nbf: claimTime, exp: claimTime }),
  expired: z.boolean(),
  not_yet_valid: z.boolean(),
  expires_in_seconds: z.number().nullable().describe('exp minus the reference time; negative once expired'),
  warnings: z.array(
    z.object({
      code: z
        .enum(INSPECT_WARNING_CODES)
        .describe('Stable; new codes may be added. The message is for humans and may change'),
      message: z.string(),
    }),
  ),
})

const verifyResult = z.union([
  z.object({
    valid: z.literal(true),
    header: z.record(z.string(), z.unknown()),
    payload: z.record(z.string(), z.unknown()),
  }),
  z.object({
    valid: z.literal(false),
    reason: z.object({
      code: z.enum(VERIFY_REASON_CODES),
      message: z.string(),
      claim: z.string().optional().describe('The claim at fault, for claim-related codes'),
    }),
  }),
])

export async function jwtRoutes(app: FastifyInstance): Promise<void> {
  defineRoute(app, {
    method: 'POST',
    url: '/v1/jwt/decode',
    security: 'apiKey',
    family: 'jwt',
    op: 'jwt.decode',
    operationId: 'decodeJwt',
    summary: 'Take a JWS compact token apart (never verifies)',
    description:
      'Splits header.payload.signature and decodes the header and payload (a payload that is not a JSON ' +
      'object is returned as text or base64url, as `payload_format` says). Nothing is verified: use ' +
      'POST /v1/jwt/verify before trusting a claim. A token that is not three base64url segments with a JSON ' +
      'header is 400 ERR_INVALID_JWT, with details {part, reason}.',
    tags: ['JWT'],
    body: jwtDecodeBody,
    response: decodeResult,
    errors: ['ERR_INVALID_JWT'],
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/jwt/inspect',
    security: 'apiKey',
    family: 'jwt',
    op: 'jwt.inspect',
    operationId: 'inspectJwt',
    summary: 'Decode a token and explain its times and risks (never verifies)',
    description:
      'Everything decode answers, plus the iat/nbf/exp claims as ISO 8601 and relative to `at` (default ' +
      'now), whether the token is expired or not yet valid, and warnings with stable codes (alg none, ' +
      'no exp, a lifetime over a year, a key in the header, ...). Nothing is verified.',
    tags: ['JWT'],
    body: jwtInspectBody,
    response: inspectResult,
    errors: ['ERR_INVALID_JWT'],
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/jwt/verify',
    security: 'apiKey',
    family: 'jwt',
    op: 'jwt.verify',
    operationId: 'verifyJwt',
    summary: 'Verify a token signature and its claims',
    description:
      'Exactly one of secret, public_key or jwks. A malformed token or unusable key is a 400; a well-formed ' +
      'token that fails is 200 {valid: false, reason}. alg "none" is never valid, and the key type must ' +
      'match the algorithm family (no HS256 with an RSA public key). RSA keys under 2048 bits are refused.',
    tags: ['JWT'],
    body: jwtVerifyBody,
    response: verifyResult,
    errors: [
      'ERR_INVALID_JWT',
      'ERR_INVALID_KEY_MATERIAL',
      'ERR_UNSUPPORTED_ALGORITHM',
      'ERR_INVALID_ENCODING',
    ],
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/jwt/sign',
    security: 'apiKey',
    family: 'jwt',
    op: 'jwt.sign',
    operationId: 'signJwt',
    summary: 'Sign a JWT',
    description:
      'iat is set to the signing time unless the payload has one. HS* secrets must be at least the hash size ' +
      '(32/48/64 bytes, RFC 7518 §3.2); RSA keys at least 2048 bits. alg "none" is never signed.',
    tags: ['JWT'],
    body: jwtSignBody,
    response: z.object({ token: z.string() }),
    errors: ['ERR_UNSUPPORTED_ALGORITHM', 'ERR_INVALID_KEY_MATERIAL', 'ERR_INVALID_ENCODING'],
  })
}
