import { isUtf8 } from 'node:buffer'
import { AppError } from '../../errors.ts'
import { type ByteEncoding, decodeInput, encodeOutput } from '../encoding.ts'
import type { OpContext } from '../progress.ts'
import { compressSession, decompressSession, levelFor, type Session } from './session.ts'
import {
  ALGORITHMS,
  type Algorithm,
  type CompressOutputEncoding,
  type DecompressOutputEncoding,
} from './types.ts'

// POST /v1/compress/{algorithm} and /v1/decompress/{algorithm} with a JSON body: the bytes in
// input_encoding, the output in output_encoding (Base64 by default). Raw bodies stream (stream.ts).

export function algorithmOf(name: string): Algorithm {
  const algorithm = name.toLowerCase()
  if (!(ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw new AppError(
      'ERR_UNSUPPORTED_ALGORITHM',
      `Unknown compression algorithm "${name}"; one of ${ALGORITHMS.join(', ')}`,
      { algorithm: name, supported: [...ALGORITHMS] },
    )
  }
  return algorithm as Algorithm
}

export interface CompressResult {
  algorithm: Algorithm
  level: number
  output: string
  output_encoding: CompressOutputEncoding
  input_bytes: number
  output_bytes: number
}

export interface DecompressResult {
  algorithm: Algorithm
  output: string
  output_encoding: DecompressOutputEncoding
  input_bytes: number
  output_bytes: number
  valid_utf8: boolean
}

// ignoreBOM keeps a leading U+FEFF in the output: the bytes are reported as they are
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true })

export function compressedData(
  algorithm: Algorithm,
  level: number,
  output: Buffer,
  encoding: CompressOutputEncoding,
  inputBytes: number,
): CompressResult {
  return {
    algorithm,
    level,
    output: encodeOutput(output, encoding),
    output_encoding: encoding,
    input_bytes: inputBytes,
    output_bytes: output.length,
  }
}

// utf8 answers text (what does not decode becomes U+FFFD, and valid_utf8 says so), as base64/decode does
export function decompressedData(
  algorithm: Algorithm,
  output: Buffer,
  encoding: DecompressOutputEncoding,
  inputBytes: number,
): DecompressResult {
  return {
    algorithm,
    output: encoding === 'utf8' ? utf8.decode(output) : encodeOutput(output, encoding),
    output_encoding: encoding,
    input_bytes: inputBytes,
    output_bytes: output.length,
    valid_utf8: isUtf8(output),
  }
}

function runAll(session: Session, bytes: Uint8Array): Buffer {
  const pieces: Uint8Array[] = []
  for (const piece of session.write(bytes)) pieces.push(piece)
  for (const piece of session.end()) pieces.push(piece)
  return Buffer.concat(pieces)
}

export interface CompressInput {
  algorithm: string
  input: string
  input_encoding?: ByteEncoding
  level?: number | undefined
  output_encoding?: CompressOutputEncoding
}

export function compress(params: CompressInput, ctx: OpContext): CompressResult {
  const algorithm = algorithmOf(params.algorithm)
  const level = levelFor(algorithm, params.level, ctx.caps)
  const bytes = decodeInput(params.input, params.input_encoding ?? 'utf8')
  const output = runAll(compressSession(algorithm, level), bytes)
  return compressedData(algorithm, level, output, params.output_encoding ?? 'base64', bytes.length)
}

export interface DecompressInput {
  algorithm: string
  input: string
  input_encoding?: ByteEncoding
  output_encoding?: DecompressOutputEncoding
}

export function decompress(params: DecompressInput, ctx: OpContext): DecompressResult {
  const algorithm = algorithmOf(params.algorithm)
  const bytes = decodeInput(params.input, params.input_encoding ?? 'base64')
  const output = runAll(decompressSession(algorithm, ctx.caps, { held: true }), bytes)
  return decompressedData(algorithm, output, params.output_encoding ?? 'base64', bytes.length)
}
