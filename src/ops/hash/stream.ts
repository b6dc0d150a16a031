import { okEnvelopeBytes } from '../../lib/envelope.ts'
import { encodeOutput } from '../encoding.ts'
import { NOTHING, type StreamStep } from '../stream-step.ts'
import type { DigestEncoding } from '../types.ts'
import { createHasher } from './hash.ts'

// The incremental form of hash, for a raw body hashed as it streams on a pool thread, and the algorithms
// a route lists.
export { ALGORITHMS } from './hash.ts'

export interface HashStreamOptions {
  algorithm: string
  length?: number | undefined
  output_encoding: DigestEncoding
}

// A raw body, hashed chunk by chunk at constant memory: answered raw, the digest is the output (its bytes);
// answered as JSON, the envelope of the same data the JSON body gets.
export function hashStep(options: HashStreamOptions, octets: boolean): StreamStep {
  const hasher = createHasher(options.algorithm, options.length)
  let digest: Uint8Array = NOTHING
  return {
    write(chunk) {
      hasher.update(chunk)
      return []
    },
    end() {
      digest = hasher.digest()
      return octets ? digest : NOTHING
    },
    answer: (_output, bytes) =>
      okEnvelopeBytes(
        JSON.stringify({
          algorithm: options.algorithm,
          digest: encodeOutput(digest, options.output_encoding),
          output_encoding: options.output_encoding,
          input_bytes: bytes,
        }),
      ),
  }
}
