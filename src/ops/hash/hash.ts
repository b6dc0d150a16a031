import { createHash, getHashes, type Hash, hash as oneShot } from 'node:crypto'
import { crc32 } from 'node:zlib'
import { AppError } from '../../errors.ts'
import { type ByteEncoding, type DigestEncoding, decodeInput, encodeOutput } from '../encoding.ts'
import { type OpContext, PROGRESS_STEP_BYTES } from '../progress.ts'

export interface AlgorithmInfo {
  name: string
  digest_bytes: number
  secure: boolean
  xof: boolean
  default_length?: number
}

const INSECURE = new Set(['md5', 'sha1', 'crc32'])
const XOF_DEFAULT: Record<string, number> = { shake128: 16, shake256: 32 }
export const MAX_XOF_LENGTH = 8192

// Canonical names only: the runtime also lists signature aliases (RSA-SHA256, sha256WithRSAEncryption, ...)
// and duplicates (rmd160) that are the same digests under other names.
function canonical(name: string): boolean {
  return name === name.toLowerCase() && !/rsa|^ssl3-|^id-|^md5-sha1$|^ripemd$|^rmd160$/.test(name)
}

function describe(name: string): AlgorithmInfo {
  const xof = name in XOF_DEFAULT
  const digestBytes = xof ? XOF_DEFAULT[name]! : createHash(name).digest().length
  const info: AlgorithmInfo = { name, digest_bytes: digestBytes, secure: !INSECURE.has(name), xof }
  if (xof) info.default_length = XOF_DEFAULT[name]!
  return info
}

export const ALGORITHMS: readonly AlgorithmInfo[] = [
  ...getHashes().filter(canonical).map(describe),
  { name: 'crc32', digest_bytes: 4, secure: false, xof: false },
  // by code unit, not localeCompare (the same order for these ASCII names): a collator's first use reads
  // 2 MiB of ICU data into every gateway's resident memory at boot
].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))

const BY_NAME = new Map(ALGORITHMS.map((a) => [a.name, a]))

export function algorithmInfo(name: string): AlgorithmInfo {
  const info = BY_NAME.get(name.toLowerCase())
  if (!info) {
    throw new AppError(
      'ERR_UNSUPPORTED_ALGORITHM',
      `Unknown hash algorithm "${name}"; see GET /v1/hash/algorithms`,
      {
        algorithm: name,
      },
    )
  }
  return info
}

export interface Hasher {
  update(chunk: Uint8Array): void
  digest(): Buffer
}

// One streaming interface over node:crypto hashes and zlib's CRC-32.
export function createHasher(name: string, length?: number): Hasher {
  const info = algorithmInfo(name)
  if (length !== undefined && !info.xof) {
    throw new AppError('ERR_VALIDATION', '`length` applies only to shake128 and shake256', {
      issues: [{ path: 'length', message: 'only for extendable-output algorithms (shake128, shake256)' }],
    })
  }
  if (info.name === 'crc32') {
    let crc = 0
    return {
      update(chunk) {
        crc = crc32(chunk, crc)
      },
      digest() {
        const out = Buffer.alloc(4)
        out.writeUInt32BE(crc >>> 0)
        return out
      },
    }
  }
  const hash: Hash = info.xof
    ? createHash(info.name, { outputLength: length ?? info.default_length! })
    : createHash(info.name)
  return {
    update(chunk) {
      hash.update(chunk)
    },
    digest() {
      return hash.digest()
    },
  }
}

export interface HashInput {
  algorithm: string
  input: string
  input_encoding?: ByteEncoding
  output_encoding?: DigestEncoding
  length?: number
}

export interface HashResult {
  algorithm: string
  digest: string
  output_encoding: DigestEncoding
  input_bytes: number
}

// With a progress callback (a job), the bytes are hashed in steps and each step reports the fraction done.
export function hash(params: HashInput, context?: OpContext): HashResult {
  const info = algorithmInfo(params.algorithm)
  const bytes = decodeInput(params.input, params.input_encoding ?? 'utf8')
  const progress = context?.progress
  const outputEncoding = params.output_encoding ?? 'hex'
  // the common case in one call (node:crypto's one-shot hash: no hash object, no digest buffer)
  if (!progress && !info.xof && info.name !== 'crc32') {
    if (params.length !== undefined) createHasher(info.name, params.length)
    return {
      algorithm: info.name,
      digest: oneShot(info.name, bytes, outputEncoding),
      output_encoding: outputEncoding,
      input_bytes: bytes.length,
    }
  }
  const hasher = createHasher(info.name, params.length)
  if (!progress) hasher.update(bytes)
  else {
    for (let at = 0; at < bytes.length; at += PROGRESS_STEP_BYTES) {
      if (at > 0) progress(at / bytes.length)
      hasher.update(bytes.subarray(at, at + PROGRESS_STEP_BYTES))
    }
  }
  return {
    algorithm: info.name,
    digest: encodeOutput(hasher.digest(), outputEncoding),
    output_encoding: outputEncoding,
    input_bytes: bytes.length,
  }
}
