import { type OpContext, PROGRESS_STEP_BYTES, type Progress } from '../../progress.ts'
import { keepPrinted } from './envelope.ts'
import { printed } from './printer.ts'
import { createStreamState, type JsonStream } from './state.ts'
import { textToWtf8 } from './text.ts'
import { feed, finish } from './tokenizer.ts'

export const FORMAT_MODES = ['pretty', 'minify'] as const
export type FormatMode = (typeof FORMAT_MODES)[number]

export interface JsonFormatOptions {
  mode?: FormatMode
  indent?: number | '\t'
  sort_keys?: boolean
}

export interface JsonFormatInput extends JsonFormatOptions {
  input: string
}

export interface JsonFormatBytesInput extends JsonFormatOptions {
  input: Uint8Array
}

export interface JsonWarning {
  code: 'duplicate_key' | 'byte_order_mark' | 'more_duplicate_keys'
  message: string
  key?: string
  line: number
  column: number
  offset: number
}

export interface JsonFormatResult {
  output: string
  bytes: number
  warnings?: JsonWarning[]
}

const MiB = 1024 * 1024

// Output budget: pretty-printing deep nesting grows quadratically (2,800 nested arrays at indent 8 is 5.6 KB
// in, 62 MB out), so the output may be at most OUTPUT_FACTOR times the input, or OUTPUT_FLOOR for small
// inputs, and when it must fit in memory as one string, never past 256 MiB. Ordinary JSON pretty-prints to
// 1-4x its minified size (measured in docs/dispatch.md), so 16x only refuses amplification. The printer
// stops writing as soon as the budget is reached (src/ops/json/format/printer.ts).
export const OUTPUT_FACTOR = 16
export const OUTPUT_FLOOR = 1 * MiB
export const MAX_BUFFERED_OUTPUT = 256 * MiB

export function outputCap(inputBytes: number, buffered: boolean): number {
  const cap = Math.max(OUTPUT_FLOOR, inputBytes * OUTPUT_FACTOR)
  return buffered ? Math.min(MAX_BUFFERED_OUTPUT, cap) : cap
}

export function streamFor(
  options: JsonFormatOptions,
  setup: { text: boolean; warnings: boolean; buffered: boolean; maxBytes: number; capacity: number },
): JsonStream {
  return createStreamState({
    ...setup,
    raw: !setup.text,
    pretty: (options.mode ?? 'pretty') === 'pretty',
    indent: options.indent ?? 2,
    sortKeys: options.sort_keys ?? false,
  })
}

export function warningsOf(st: JsonStream): JsonWarning[] | undefined {
  if (!st.bom && st.duplicateCount === 0) return undefined
  const warnings: JsonWarning[] = []
  if (st.bom) {
    const message = 'A leading byte order mark (U+FEFF) was dropped.'
    warnings.push({ code: 'byte_order_mark', message, line: 1, column: 1, offset: 0 })
  }
  for (const { key, line, column, offset } of st.duplicates) {
    const message = `Duplicate key ${JSON.stringify(key)} (kept).`
    warnings.push({ code: 'duplicate_key', message, key, line, column, offset })
  }
  const more = st.duplicateCount - st.duplicates.length
  if (more > 0) {
    const { line, column, offset } = st.duplicates[st.duplicates.length - 1]!
    const message = `${more} more duplicate keys are not listed.`
    warnings.push({ code: 'more_duplicate_keys', message, line, column, offset })
  }
  return warnings
}

// With a progress callback (a job), the bytes are fed to the tokenizer in steps, as a streamed body's
// chunks are (the same output, split anywhere), and each step reports the fraction done.
function formatOnce(
  bytes: Uint8Array,
  options: JsonFormatOptions,
  text: boolean,
  progress?: Progress,
  step = PROGRESS_STEP_BYTES,
): JsonStream {
  const maxBytes = outputCap(bytes.length, true)
  const expected = options.mode === 'minify' ? bytes.length : bytes.length * 2
  const capacity = Math.min(maxBytes, expected)
  const st = streamFor(options, { text, warnings: true, buffered: true, maxBytes, capacity })
  if (!progress) feed(st, bytes)
  else {
    for (let at = 0; at < bytes.length; at += step) {
      if (at > 0) progress(at / bytes.length)
      feed(st, bytes.subarray(at, at + step))
    }
  }
  finish(st)
  return st
}

// The result's `output` is the printed bytes' text, decoded when first read: an answer serialized from the
// bytes (envelope.ts: the pool thread's JSON answer, or the raw bytes for Accept: application/octet-stream)
// never needs the string (~14 ms for 10 MiB of output). It is an own enumerable member, first, like the
// others: JSON.stringify, spreads and structured clones read it as they would a plain one.
function resultOf(st: JsonStream): JsonFormatResult {
  return formatResultOf(printed(st.printer), warningsOf(st))
}

// The result for these printed bytes (a streamed body's whole output, too: formatStep, stream.ts).
export function formatResultOf(output: Uint8Array, warnings: JsonWarning[] | undefined): JsonFormatResult {
  let text: string | undefined
  const result = Object.defineProperty({} as JsonFormatResult, 'output', {
    get: () => (text ??= Buffer.from(output.buffer, output.byteOffset, output.byteLength).toString('utf8')),
    enumerable: true,
    configurable: true,
  })
  result.bytes = output.length
  if (warnings) result.warnings = warnings
  // for its JSON text and its raw bytes, made from these bytes (envelope.ts)
  keepPrinted(result, output)
  return result
}

// Lossless reformatting: the text is validated and tokenized, never parsed into JS values, so numbers,
// escapes, key order and duplicate keys survive exactly. Offsets are in UTF-16 units of `input`.
export function formatJson(params: JsonFormatInput, context?: OpContext): JsonFormatResult {
  return resultOf(formatOnce(textToWtf8(params.input), params, true, context?.progress))
}

// formatJson in steps of `step` bytes, reporting each: for tests, which take steps small enough to split
// every token somewhere
export function formatJsonInSteps(
  params: JsonFormatInput,
  progress: Progress,
  step: number,
): JsonFormatResult {
  return resultOf(formatOnce(textToWtf8(params.input), params, true, progress, step))
}

// The raw-body form: UTF-8 bytes in. Offsets stay in UTF-16 units of the decoded text, like the JSON
// form, and errors add byte_offset into the body.
export function formatJsonBytes(params: JsonFormatBytesInput): JsonFormatResult {
  return resultOf(formatOnce(params.input, params, false))
}
