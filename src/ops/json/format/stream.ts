import { okEnvelopeValueBytes } from '../../../lib/envelope.ts'
import type { StreamStep } from '../../stream-step.ts'
import { createJsonStream, endJsonStream, jsonStreamWarnings, writeJsonStream } from '../stream/stream.ts'
import { formatResultJson } from './envelope.ts'
import { formatResultOf, type JsonFormatOptions } from './format.ts'

export interface FormatStreamOptions extends JsonFormatOptions {
  // the body's declared size: the output's budget follows it (src/ops/json/format/format.ts outputCap)
  expected_bytes?: number | undefined
}

// A raw body formatted as it arrives: answered raw, the output streams back at constant memory up to the
// plan's binary limit (warnings are not sent); answered as JSON, the thread holds the output and puts it,
// with the warnings, in its envelope.
export function formatStep(options: FormatStreamOptions, octets: boolean): StreamStep {
  const { expected_bytes, ...format } = options
  const stream = createJsonStream({
    ...format,
    warnings: !octets,
    buffered: !octets,
    ...(expected_bytes !== undefined ? { expected_bytes } : {}),
  })
  return {
    write: (chunk) => writeJsonStream(stream, chunk),
    end: () => endJsonStream(stream),
    answer: (output) =>
      okEnvelopeValueBytes(
        formatResultOf(Buffer.concat(output), jsonStreamWarnings(stream)),
        formatResultJson,
      ),
  }
}
