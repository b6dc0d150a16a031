import { createPublicKey } from 'node:crypto'
import type { KeyDescription } from './keypair.ts'
import { formsOf, type KeyForms, type KeyMaterial, readKey, thumbprints } from './keys.ts'
import type { ThumbprintHash } from './types.ts'

export interface ConvertInput {
  key: KeyMaterial
}

export interface ConvertResult extends KeyDescription {
  kind: 'private' | 'public'
  private_key?: KeyForms
  public_key: KeyForms
  thumbprint: string
  thumbprint_uri: string
}

function described(read: ReturnType<typeof readKey>): KeyDescription {
  const out: KeyDescription = { type: read.type }
  if (read.curve !== undefined) out.curve = read.curve
  if (read.bits !== undefined) out.bits = read.bits
  return out
}

// A key in either form answered in both: a private key as PKCS#8 and JWK with its public key, a public key
// as SPKI and JWK; the public key's thumbprint with it.
export async function convertKey(input: ConvertInput): Promise<ConvertResult> {
  const read = readKey(input.key)
  const publicKey = read.kind === 'private' ? createPublicKey(read.key) : read.key
  const public_key = formsOf(publicKey)
  const { thumbprint, uri } = await thumbprints(public_key.jwk)
  const result: ConvertResult = {
    kind: read.kind,
    ...described(read),
    public_key,
    thumbprint,
    thumbprint_uri: uri,
  }
  if (read.kind === 'private') result.private_key = formsOf(read.key)
  return result
}

export interface ThumbprintInput {
  key: KeyMaterial
  hash?: ThumbprintHash
}

export interface ThumbprintResult extends KeyDescription {
  hash: ThumbprintHash
  thumbprint: string
  thumbprint_uri: string
}

// RFC 7638: of the public key, whichever form and half of the pair is sent.
export async function thumbprintKey(input: ThumbprintInput): Promise<ThumbprintResult> {
  const read = readKey(input.key)
  const hash = input.hash ?? 'sha256'
  const publicKey = read.kind === 'private' ? createPublicKey(read.key) : read.key
  const { thumbprint, uri } = await thumbprints(formsOf(publicKey).jwk, hash)
  return { ...described(read), hash, thumbprint, thumbprint_uri: uri }
}
