import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { AppError } from '../../errors.ts'
import { formsOf, type KeyForms, thumbprints } from './keys.ts'
import { type EcCurve, type KeypairType, type KeyType, RSA_BITS } from './types.ts'

export interface KeypairInput {
  type: KeypairType
  bits?: number
  curve?: EcCurve
}

export interface KeyDescription {
  type: KeyType
  curve?: string
  bits?: number
}

export interface KeypairResult extends KeyDescription {
  private_key: KeyForms
  public_key: KeyForms
  thumbprint: string
  thumbprint_uri: string
}

// the per-plan cap on an RSA modulus (docs/api.md, "Key pairs")
export const RSA_BITS_CAP = 'crypto_rsa_max_bits'

function misplaced(field: string, type: string): AppError {
  const message = field === 'bits' ? 'applies to rsa only' : 'applies to ec only'
  return new AppError('ERR_VALIDATION', `\`${field}\` ${message}, not to ${type}`, {
    issues: [{ path: field, message }],
  })
}

// The pair's private key as PKCS#8 and JWK, its public key as SPKI and JWK, and the public key's RFC 7638
// thumbprint (SHA-256). RSA's public exponent is 65537.
export async function generateKeypair(
  input: KeypairInput,
  caps: Readonly<Record<string, number>>,
): Promise<KeypairResult> {
  if (input.type !== 'rsa' && input.bits !== undefined) throw misplaced('bits', input.type)
  if (input.type !== 'ec' && input.curve !== undefined) throw misplaced('curve', input.type)
  let pair: { privateKey: KeyObject; publicKey: KeyObject }
  const described: KeyDescription = { type: input.type }
  if (input.type === 'rsa') {
    const bits = input.bits ?? RSA_BITS.default
    const cap = caps[RSA_BITS_CAP] ?? RSA_BITS.default
    if (bits > cap) {
      throw new AppError(
        'ERR_PLAN_CAP',
        `RSA keys of this plan have at most ${cap} bits; ${bits} were asked`,
        {
          cap: RSA_BITS_CAP,
          max: cap,
          requested: bits,
        },
      )
    }
    pair = generateKeyPairSync('rsa', { modulusLength: bits, publicExponent: 65537 })
    described.bits = bits
  } else if (input.type === 'ec') {
    const curve = input.curve ?? 'P-256'
    pair = generateKeyPairSync('ec', { namedCurve: curve })
    described.curve = curve
  } else if (input.type === 'ed25519') pair = generateKeyPairSync('ed25519')
  else pair = generateKeyPairSync('x25519')
  const public_key = formsOf(pair.publicKey)
  const { thumbprint, uri } = await thumbprints(public_key.jwk)
  return { ...described, private_key: formsOf(pair.privateKey), public_key, thumbprint, thumbprint_uri: uri }
}
