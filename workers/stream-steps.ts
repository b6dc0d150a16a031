import { okEnvelopeAroundBytes, okEnvelopeBytes, okEnvelopeValueBytes } from '../src/lib/envelope.ts'
import { createBase64Decoder, endBase64Decoder, writeBase64Decoder } from '../src/ops/base64/decode.ts'
import {
  createBase64Encoder,
  describeDecoded,
  encodedDataJson,
  endBase64Encoder,
  writeBase64Encoder,
} from '../src/ops/base64/stream.ts'
import { createHasher } from '../src/ops/hash/hash.ts'
import { formatResultJson } from '../src/ops/json/format/envelope.ts'
import { formatResultOf } from '../src/ops/json/format/format.ts'
import {
  createJsonStream,
  endJsonStream,
  jsonStreamWarnings,
  writeJsonStream,
} from '../src/ops/json/stream/stream.ts'
import type { StreamJob, StreamResult } from './stream-protocol.ts'

const NOTHING = new Uint8Array(0)

// One streamed op on the thread: each chunk in, the output it completes out (in pieces of bounded size, so
// a chunk that expands a lot is never held whole and the thread can stop between pieces), whatever is left
// at the end, then what the op knows about the whole body. write and end may throw an AppError. `answer`,
// for ops whose JSON answer holds their whole output (format, Base64), is that answer: the success envelope
// around what the op made of the whole output (its pieces, in order) and what it knows, as UTF-8 bytes,
// made from the output's bytes where that saves a string of it, and from the pieces themselves where that
// saves joining them (a hash's JSON answer is its digest: built by the route).
export interface StreamStep {
  write(chunk: Uint8Array): Iterable<Uint8Array>
  end(): Uint8Array
  result(): Omit<StreamResult, 'bytes'>
  answer?(output: readonly Uint8Array[]): Uint8Array
}

export function createStreamStep(job: StreamJob): StreamStep {
  switch (job.kind) {
    case 'json.format': {
      const stream = createJsonStream(job.options)
      return {
        write: (chunk) => writeJsonStream(stream, chunk),
        end: () => endJsonStream(stream),
        result: () => {
          const warnings = jsonStreamWarnings(stream)
          return warnings ? { warnings } : {}
        },
        answer: (output) =>
          okEnvelopeValueBytes(
            formatResultOf(Buffer.concat(output), jsonStreamWarnings(stream)),
            formatResultJson,
          ),
      }
    }
    case 'base64.encode': {
      const encoder = createBase64Encoder(job.variant, job.padding)
      return {
        write: (chunk) => [writeBase64Encoder(encoder, chunk)],
        end: () => endBase64Encoder(encoder),
        result: () => ({ variant: job.variant }),
        answer: (output) => okEnvelopeAroundBytes(encodedDataJson(output, job.variant)),
      }
    }
    case 'base64.decode': {
      const decoder = createBase64Decoder(job.variant, job.strict)
      let variant: StreamResult['variant']
      return {
        write: (chunk) => [writeBase64Decoder(decoder, chunk)],
        end: () => {
          variant = endBase64Decoder(decoder)
          return NOTHING
        },
        result: () => (variant ? { variant } : {}),
        answer: (output) =>
          okEnvelopeBytes(
            JSON.stringify(describeDecoded(Buffer.concat(output), variant!, job.output_encoding ?? 'utf8')),
          ),
      }
    }
    case 'hash': {
      const hasher = createHasher(job.algorithm, job.length)
      let digest: Uint8Array | undefined
      return {
        write: (chunk) => {
          hasher.update(chunk)
          return []
        },
        end: () => {
          digest = hasher.digest()
          return NOTHING
        },
        result: () => (digest ? { digest } : {}),
      }
    }
  }
}
