import { AppError } from '../../errors.ts'
import { okEnvelopeBytes } from '../../lib/envelope.ts'
import { ownBytes } from '../../lib/own-bytes.ts'
import type { StreamStep } from '../stream-step.ts'
import { convertBytes, defaultBounds } from './convert.ts'
import type { ConvertOptions, ConvertResult, DataFormat } from './types.ts'

// A raw body converted on a pool thread. Conversion needs the whole document (a YAML alias, a TOML table
// header or a CSV header reach across it), so the step holds the body, up to the plan's
// data_max_input_bytes, and converts it at the end: answered raw, the output's bytes; as JSON, the envelope.

export const MAX_INPUT_CAP = 'data_max_input_bytes'

export interface ConvertStreamOptions {
  from: DataFormat
  to: DataFormat
  options: ConvertOptions
}

// The query's formats, which a raw body needs (the query schema leaves them optional for JSON bodies).
export function streamOptions(query: {
  from?: DataFormat | undefined
  to?: DataFormat | undefined
  options: ConvertOptions
}): ConvertStreamOptions {
  const missing = (['from', 'to'] as const).filter((name) => query[name] === undefined)
  if (missing.length > 0) {
    throw new AppError('ERR_VALIDATION', 'A raw body names its formats in the query string (?from=&to=).', {
      issues: missing.map((name) => ({ path: name, message: 'required with a raw body' })),
    })
  }
  const options = Object.fromEntries(Object.entries(query.options).filter(([, v]) => v !== undefined))
  return { from: query.from!, to: query.to!, options }
}

export function convertStep(
  options: ConvertStreamOptions,
  _octets: boolean,
  caps: Readonly<Record<string, number>>,
): StreamStep {
  const max = caps[MAX_INPUT_CAP]!
  const chunks: Uint8Array[] = []
  let size = 0
  let result: ConvertResult | undefined
  return {
    write(chunk) {
      size += chunk.length
      if (size > max) {
        throw new AppError('ERR_PAYLOAD_TOO_LARGE', `A document to convert may be at most ${max} bytes.`, {
          limit_bytes: max,
        })
      }
      // a chunk is a view of the stream's ring, overwritten once this write's output is taken (StreamStep):
      // kept, it is copied
      chunks.push(chunk.slice())
      return []
    },
    end() {
      const input = Buffer.concat(chunks, size)
      chunks.length = 0
      result = convertBytes({ ...options, input }, defaultBounds(size))
      return ownBytes(Buffer.from(result.output, 'utf8'))
    },
    answer: () => okEnvelopeBytes(JSON.stringify(result)),
  }
}
