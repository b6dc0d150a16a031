import { okEnvelopeBytes } from '../../lib/envelope.ts'
import type { StreamStep } from '../stream-step.ts'
import { compressedData, decompressedData } from './compression.ts'
import { compressSession, decompressSession, type Session } from './session.ts'
import type { Algorithm, CompressOutputEncoding, DecompressOutputEncoding } from './types.ts'

// Raw bodies compressed and decompressed as they arrive, on a thread of the plan's pool, at constant memory
// when the answer is raw (the output streams back in pieces of at most 64 KiB); a JSON answer holds the
// output and answers it in output_encoding (Base64 by default), as base64/encode does for raw bodies.

function ending(session: Session): Uint8Array {
  const pieces = [...session.end()]
  return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces)
}

export interface CompressStreamOptions {
  algorithm: Algorithm
  level: number
  output_encoding: CompressOutputEncoding
}

export function compressStep(options: CompressStreamOptions): StreamStep {
  const session = compressSession(options.algorithm, options.level)
  return {
    write: (chunk) => session.write(chunk),
    // a compressor's last output is what it held back (a brotli block, a zstd window): a few MiB at most
    end: () => ending(session),
    answer: (output, bytes) =>
      okEnvelopeBytes(
        JSON.stringify(
          compressedData(
            options.algorithm,
            options.level,
            Buffer.concat(output),
            options.output_encoding,
            bytes,
          ),
        ),
      ),
  }
}

export interface DecompressStreamOptions {
  algorithm: Algorithm
  output_encoding: DecompressOutputEncoding
}

export function decompressStep(
  options: DecompressStreamOptions,
  octets: boolean,
  caps: Readonly<Record<string, number>>,
): StreamStep {
  const session = decompressSession(options.algorithm, caps, { held: !octets })
  return {
    write: (chunk) => session.write(chunk),
    end: () => ending(session),
    answer: (output, bytes) =>
      okEnvelopeBytes(
        JSON.stringify(
          decompressedData(options.algorithm, Buffer.concat(output), options.output_encoding, bytes),
        ),
      ),
  }
}
