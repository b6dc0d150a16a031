import { okEnvelopeValueBytes } from '../../../lib/envelope.ts'
import type { StreamStep } from '../../stream-step.ts'
import { formatResultJson } from './envelope.ts'
import {
  formatResultOf,
  type JsonFormatOptions,
  type JsonWarning,
  outputCap,
  streamFor,
  warningsOf,
} from './format.ts'
import { takePrinted } from './printer.ts'
import type { JsonStream } from './state.ts'
import { feed, finish } from './tokenizer.ts'

export type { JsonStream } from './state.ts'

export interface JsonStreamOptions extends JsonFormatOptions {
  // the body's declared size (Content-Length), when known: the output cap is 4x the input
  expected_bytes?: number
  // keep what warnings need (every key of every open object); off when they are not sent
  warnings: boolean
  // the whole output is kept to answer one JSON string: the output cap never passes 256 MiB
  buffered: boolean
}

const CHUNK_OUTPUT = 64 * 1024

// Formats a raw body as it arrives: writeJsonStream takes each chunk, split anywhere, and returns the
// output it completes. Errors are thrown as soon as the input is known to be invalid. Memory stays flat
// whatever the size, except what sort_keys holds (each outermost object until it closes) and what
// warnings need (the keys of the open objects).
export function createJsonStream(options: JsonStreamOptions): JsonStream {
  const expected = options.expected_bytes ?? 0
  return streamFor(options, {
    text: false,
    warnings: options.warnings,
    buffered: options.buffered,
    maxBytes: outputCap(expected, options.buffered),
    capacity: CHUNK_OUTPUT,
  })
}

// The output the chunk completes, in pieces (several only for large pretty output).
export function* writeJsonStream(st: JsonStream, chunk: Uint8Array): Generator<Buffer> {
  // with no declared size, the cap follows the bytes received so far
  const cap = outputCap(st.base + chunk.length, st.buffered)
  if (cap > st.printer.max) st.printer.max = cap
  let at = 0
  do {
    at = feed(st, chunk, at)
    // a streamed answer stops at the cap; a buffered one reads on, so that an invalid document is a 400
    if (st.printer.overflow && st.buffered) continue
    if (st.printer.length > 0 || st.printer.overflow) yield takePrinted(st.printer)
  } while (at < chunk.length)
}

export function endJsonStream(st: JsonStream): Buffer {
  finish(st)
  return takePrinted(st.printer)
}

export function jsonStreamWarnings(st: JsonStream): JsonWarning[] | undefined {
  return warningsOf(st)
}

export interface FormatStreamOptions extends JsonFormatOptions {
  // the body's declared size: the output's budget follows it (src/ops/json/format/format.ts outputCap)
  expected_bytes?: number | undefined
}

// A raw body formatted as it arrives: answered raw, the output streams back at constant memory up to the
// plan's binary limit (warnings are not sent); answered as JSON, the thread holds the output and puts it,
// with the warnings, in its envelope.
export function formatStep(options: FormatStreamOptions, octets: boolean): StreamStep {
  const { expected_bytes, ...format } = options
  const stream: JsonStream = createJsonStream({
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
