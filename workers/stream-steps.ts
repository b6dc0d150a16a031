import { createBase64Decoder, endBase64Decoder, writeBase64Decoder } from '../src/ops/base64/decode.ts'
import {
  createBase64Encoder,
  describeDecoded,
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
// at the end, then what the op knows about the whole body. write and end may throw an AppError. `data`,
// for ops whose JSON answer holds their whole output (format, Base64), is that answer's data: built from
// the whole output and what the op knows (a hash's JSON answer is its digest: built by the route).
export interface StreamStep {
  write(chunk: Uint8Array): Iterable<Uint8Array>
  end(): Uint8Array
  result(): Omit<StreamResult, 'bytes'>
  data?(output: Buffer): unknown
  // that answer's JSON text as UTF-8 bytes, where the op makes it quicker than JSON.stringify (OpSpec.jsonBytes)
  jsonBytes?(data: never): Uint8Array | undefined
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
        data: (output) => formatResultOf(output, jsonStreamWarnings(stream)),
        jsonBytes: formatResultJson,
      }
    }
    case 'base64.encode': {
      const encoder = createBase64Encoder(job.variant, job.padding)
      return {
        write: (chunk) => [writeBase64Encoder(encoder, chunk)],
        end: () => endBase64Encoder(encoder),
        result: () => ({ variant: job.variant }),
        data: (output) => ({ output: output.toString('latin1'), variant: job.variant }),
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
        data: (output) => describeDecoded(output, variant!, job.output_encoding ?? 'utf8'),
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
