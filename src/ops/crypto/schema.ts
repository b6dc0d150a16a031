import { z } from 'zod'
import { isJsonObject } from '../jwt/types.ts'
import { EC_CURVES, KEY_TYPES, KEYPAIR_TYPES, MAX_PEM_CHARS, RSA_BITS, THUMBPRINT_HASHES } from './types.ts'

// The crypto family's request and response schemas.

const jwk = z
  .custom<Record<string, unknown>>(isJsonObject, { message: 'must be a PEM string or a JWK object' })
  .meta({ type: 'object', additionalProperties: true, description: 'A JWK (RFC 7517)' })

const keyMaterial = z
  .union([z.string().min(1).max(MAX_PEM_CHARS), jwk])
  .describe(
    'A key, public or private: PEM (PKCS#8, PKCS#1 or SEC1 private; SPKI or PKCS#1 public; an X.509 ' +
      'certificate for its public key; never an encrypted key) or a JWK object (RSA, EC or OKP)',
  )

export const keypairBody = z.strictObject({
  type: z.enum(KEYPAIR_TYPES).describe('rsa, ec, ed25519 (signatures) or x25519 (key agreement)'),
  bits: z
    .number()
    .int()
    .min(RSA_BITS.min)
    .max(RSA_BITS.max)
    .multipleOf(8)
    .optional()
    .describe('rsa only: modulus bits, 2048–4096 in whole bytes (default 2048; capped per plan)'),
  curve: z.enum(EC_CURVES).optional().describe('ec only: the curve (default P-256)'),
})

export const convertBody = z.strictObject({ key: keyMaterial })

export const thumbprintBody = z.strictObject({
  key: keyMaterial,
  hash: z.enum(THUMBPRINT_HASHES).default('sha256').describe('The thumbprint hash (RFC 7638 uses SHA-256)'),
})

const forms = z.object({
  pem: z.string().describe('PEM: PKCS#8 for a private key, SPKI for a public key'),
  jwk: z.record(z.string(), z.unknown()).describe('JWK (RFC 7517), members in RFC 7518 order'),
})

const described = {
  type: z.enum(KEY_TYPES),
  curve: z.string().optional().describe('ec: the curve, by its JWK name'),
  bits: z.number().int().optional().describe('rsa: modulus bits'),
}
const thumbprints = {
  thumbprint: z.string().describe("The public key's RFC 7638 thumbprint, base64url"),
  thumbprint_uri: z.string().describe('The same as an RFC 9278 URI'),
}

export const keypairResult = z.object({
  ...described,
  private_key: forms,
  public_key: forms,
  ...thumbprints,
})

export const convertResult = z.object({
  kind: z.enum(['private', 'public']).describe('Which half of the pair was sent'),
  ...described,
  private_key: forms.optional().describe('The key sent, when private'),
  public_key: forms.describe('The public key (of the private key sent)'),
  ...thumbprints,
})

export const thumbprintResult = z.object({
  ...described,
  hash: z.enum(THUMBPRINT_HASHES),
  ...thumbprints,
})
