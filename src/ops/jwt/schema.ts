// The jwt family's request bodies: the routes' schemas, and what a worker validates a large body with
// (OpDescriptor.body, src/ops/define.ts).
import { z } from 'zod'
import { BYTE_ENCODINGS } from '../types.ts'
import {
  INSPECT_WARNING_CODES,
  isJsonObject,
  JWS_ALGORITHM_NAMES,
  MAX_DURATION_SECONDS,
  MAX_NUMERIC_DATE,
  VERIFY_REASON_CODES,
} from './types.ts'

// A JWS "alg" (case-sensitive, RFC 7515): the document offers the closed set, while the op refuses any other
// name with ERR_UNSUPPORTED_ALGORITHM and the list of supported ones, rather than a bare validation error.
function jwsAlgorithm(description: string) {
  return z
    .string()
    .max(32)
    .meta({ enum: [...JWS_ALGORITHM_NAMES], description })
}

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

export const jwtDecodeBody = z.strictObject({ token })
export const jwtInspectBody = z.strictObject({ token, at: at.optional() })

export const jwtVerifyBody = z.strictObject({
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
    .array(jwsAlgorithm('A JWS algorithm; another name is refused with ERR_UNSUPPORTED_ALGORITHM'))
    .min(1)
    .max(20)
    .optional()
    .describe('Allow-list; default: every algorithm the key type supports'),
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

export const jwtSignBody = z.strictObject({
  payload: jsonObject('The JWT claims set'),
  algorithm: jwsAlgorithm(
    'The JWS algorithm ("none" is never signed); another name is refused with ERR_UNSUPPORTED_ALGORITHM',
  ),
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

export const jwtDecodeResult = z.object({
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

export const jwtInspectResult = jwtDecodeResult.extend({
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

export const jwtVerifyResult = z.union([
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
