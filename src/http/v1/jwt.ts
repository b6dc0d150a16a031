import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { BYTE_ENCODINGS } from '../../ops/encoding.ts'
import { JWS_ALGORITHM_NAMES } from '../../ops/jwt/algorithms.ts'
import { isJsonObject } from '../../ops/jwt/decode.ts'
import { MAX_DURATION_SECONDS, MAX_NUMERIC_DATE } from '../../ops/jwt/time.ts'
import { VERIFY_REASON_CODES } from '../../ops/jwt/verify.ts'
import { defineRoute } from '../define-route.ts'

// Free-form JSON objects pass through untouched (zod's record would drop a "__proto__" member, which
// would silently change what gets signed or verified).
function jsonObject(description: string) {
  return z
    .custom<Record<string, unknown>>(isJsonObject, { message: 'must be a JSON object' })
    .meta({ type: 'object', additionalProperties: true, description })
}

const token = z.string().describe('A JWS compact token: header.payload.signature')
const at = z
  .union([z.number().min(0).max(MAX_NUMERIC_DATE), z.iso.datetime({ offset: true })])
  .describe('Reference time instead of now: Unix seconds or an ISO 8601 date-time')
const duration = z
  .union([z.number().int().min(-MAX_DURATION_SECONDS).max(MAX_DURATION_SECONDS), z.string().max(32)])
  .describe('Seconds, or a span such as "90s", "15m", "2h", "7d", "1y"')
const stringOrList = z.union([z.string(), z.array(z.string()).min(1).max(50)])
const keyMaterial = z.union([z.string().min(1), jsonObject('A JWK (RFC 7517)')])
const secretFields = {
  secret: z
    .string()
    .optional()
    .describe('HMAC secret for HS*, in secret_encoding. Never logged or echoed back'),
  secret_encoding: z.enum(BYTE_ENCODINGS).default('utf8'),
}

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
  algorithm: z.string(),
  key_id: z.string().nullable(),
  type: z.string().nullable(),
  claims: z.object({ iat: claimTime, nbf: claimTime, exp: claimTime }),
  expired: z.boolean(),
  not_yet_valid: z.boolean(),
  expires_in_seconds: z.number().nullable().describe('exp minus the reference time; negative once expired'),
  warnings: z.array(z.object({ code: z.string(), message: z.string() })),
})

const verifyBody = z.strictObject({
  token,
  ...secretFields,
  public_key: keyMaterial
    .optional()
    .describe('PEM public key (SPKI or PKCS#1), PEM X.509 certificate, or a public JWK'),
  jwks: z
    .object(
      { keys: z.array(jsonObject('A JWK')).max(100) },
      {
        error: (issue) =>
          typeof issue.input === 'string'
            ? 'Remote JWKS URLs are not fetched; send the JWKS document itself: {"keys": [...]}'
            : undefined,
      },
    )
    .optional()
    .describe('A local JWK Set; the key is chosen by the token "kid" and "alg". URLs are refused'),
  algorithms: z
    .array(z.string().max(32))
    .min(1)
    .max(20)
    .optional()
    .describe(
      `Allow-list; default: every algorithm the key type supports. Known: ${JWS_ALGORITHM_NAMES.join(', ')}`,
    ),
  issuer: stringOrList.optional().describe('Expected "iss" (one of)'),
  audience: stringOrList.optional().describe('Expected "aud" (any of)'),
  subject: z.string().optional().describe('Expected "sub"'),
  max_token_age: z
    .union([z.number().min(0).max(MAX_DURATION_SECONDS), z.string().max(32)])
    .optional()
    .describe('Maximum age since "iat": seconds or a span like "1h"'),
  clock_tolerance_seconds: z.number().int().min(0).max(MAX_DURATION_SECONDS).optional(),
  required_claims: z.array(z.string().min(1).max(256)).max(50).optional(),
  at: at.optional(),
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

const signBody = z.strictObject({
  payload: jsonObject('The JWT claims set'),
  algorithm: z
    .string()
    .max(32)
    .describe(`One of ${JWS_ALGORITHM_NAMES.join(', ')} ("none" is never signed)`),
  ...secretFields,
  private_key: keyMaterial
    .optional()
    .describe('For RS/PS/ES/EdDSA: unencrypted PEM private key or a private JWK'),
  header: jsonObject(
    'Extra protected header parameters (kid, typ, ...); alg comes from algorithm',
  ).optional(),
  expires_in: duration.optional().describe('Sets exp = signing time + this'),
  not_before: duration.optional().describe('Sets nbf = signing time + this'),
  issuer: z.string().optional(),
  audience: stringOrList.optional(),
  subject: z.string().optional(),
})

export async function jwtRoutes(app: FastifyInstance): Promise<void> {
  defineRoute(app, {
    method: 'POST',
    url: '/v1/jwt/decode',
    security: 'apiKey',
    family: 'jwt',
    operationId: 'decodeJwt',
    summary: 'Take a JWS compact token apart (never verifies)',
    tags: ['JWT'],
    body: z.strictObject({ token }),
    response: decodeResult,
    errors: ['ERR_INVALID_JWT'],
    handler: function decodeJwtHandler({ body, run }) {
      return run('jwt.decode', body)
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/jwt/inspect',
    security: 'apiKey',
    family: 'jwt',
    operationId: 'inspectJwt',
    summary: 'Decode a token and explain its times and risks (never verifies)',
    tags: ['JWT'],
    body: z.strictObject({ token, at: at.optional() }),
    response: inspectResult,
    errors: ['ERR_INVALID_JWT'],
    handler: function inspectJwtHandler({ body, run }) {
      return run('jwt.inspect', body)
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/jwt/verify',
    security: 'apiKey',
    family: 'jwt',
    operationId: 'verifyJwt',
    summary: 'Verify a token signature and its claims',
    description:
      'Exactly one of secret, public_key or jwks. A malformed token or unusable key is a 400; a well-formed ' +
      'token that fails is 200 {valid: false, reason}. alg "none" is never valid, and the key type must ' +
      'match the algorithm family (no HS256 with an RSA public key). RSA keys under 2048 bits are refused.',
    tags: ['JWT'],
    body: verifyBody,
    response: verifyResult,
    errors: [
      'ERR_INVALID_JWT',
      'ERR_INVALID_KEY_MATERIAL',
      'ERR_UNSUPPORTED_ALGORITHM',
      'ERR_INVALID_ENCODING',
    ],
    handler: function verifyJwtHandler({ body, run }) {
      return run('jwt.verify', body)
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/jwt/sign',
    security: 'apiKey',
    family: 'jwt',
    operationId: 'signJwt',
    summary: 'Sign a JWT',
    description:
      'iat is set to the signing time unless the payload has one. HS* secrets must be at least the hash size ' +
      '(32/48/64 bytes, RFC 7518 §3.2); RSA keys at least 2048 bits. alg "none" is never signed.',
    tags: ['JWT'],
    body: signBody,
    response: z.object({ token: z.string() }),
    errors: ['ERR_UNSUPPORTED_ALGORITHM', 'ERR_INVALID_KEY_MATERIAL', 'ERR_INVALID_ENCODING'],
    handler: function signJwtHandler({ body, run }) {
      return run('jwt.sign', body)
    },
  })
}
