import { isUtf8 } from 'node:buffer'
import { AppError, isAppError } from '../errors.ts'
import { locate } from '../lib/json-error.ts'
import { sortedOrder } from './json-key-order.ts'
import { printTokens } from './json-printer.ts'
import { tokenize } from './json-tokenizer.ts'
import { invalidUtf8At } from './utf8-error.ts'

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

// A raw body is decoded into one string and tokenized in memory (about 13 bytes per token): above this
// size the work belongs to a stream, not to one request, even where the plan's binary limit is higher.
export const MAX_FORMAT_INPUT_BYTES = 100 * MiB

// Pretty-printing deep nesting grows quadratically (100,000 levels at indent 2 is ~10^10 characters),
// so the output is capped: at least 64 Mi characters, 4x the input for big inputs, never past 256 Mi.
function outputCap(inputLength: number): number {
  return Math.min(256 * MiB, Math.max(64 * MiB, inputLength * 4))
}

// Line/column of ascending offsets in one pass over the text (tokens hold no line numbers).
function positioned(text: string, offsets: number[]): { line: number; column: number; offset: number }[] {
  let line = 1
  let lineStart = 0
  let nl = text.indexOf('\n')
  return offsets.map((offset) => {
    while (nl !== -1 && nl < offset) {
      line++
      lineStart = nl + 1
      nl = text.indexOf('\n', nl + 1)
    }
    return { line, column: offset - lineStart + 1, offset }
  })
}

function warningsOf(
  text: string,
  bom: boolean,
  duplicates: { key: string; offset: number }[],
  total: number,
) {
  const warnings: Omit<JsonWarning, 'line' | 'column' | 'offset'>[] = []
  const offsets: number[] = []
  if (bom) {
    warnings.push({ code: 'byte_order_mark', message: 'A leading byte order mark (U+FEFF) was dropped.' })
    offsets.push(0)
  }
  for (const d of duplicates) {
    warnings.push({
      code: 'duplicate_key',
      message: `Duplicate key ${JSON.stringify(d.key)} (kept).`,
      key: d.key,
    })
    offsets.push(d.offset)
  }
  if (total > duplicates.length) {
    const more = total - duplicates.length
    warnings.push({ code: 'more_duplicate_keys', message: `${more} more duplicate keys are not listed.` })
    offsets.push(duplicates[duplicates.length - 1]!.offset)
  }
  const where = positioned(text, offsets)
  return warnings.map((w, i) => ({ ...w, ...where[i]! }) as JsonWarning)
}

// Lossless reformatting: the text is validated and tokenized, never parsed into JS values, so numbers,
// escapes, key order and duplicate keys survive exactly.
export function formatJson(params: JsonFormatInput): JsonFormatResult {
  const text = params.input
  const bom = text.charCodeAt(0) === 0xfeff
  const { tokens, duplicates, duplicate_count } = tokenize(text, bom ? 1 : 0)
  const order = params.sort_keys ? sortedOrder(text, tokens) : null
  const indent = params.indent ?? 2
  const output = printTokens(text, tokens, order, {
    pretty: (params.mode ?? 'pretty') === 'pretty',
    unit: indent === '\t' ? '\t' : ' '.repeat(indent),
    max_chars: outputCap(text.length),
  })
  const result: JsonFormatResult = { output, bytes: Buffer.byteLength(output, 'utf8') }
  if (bom || duplicate_count > 0) result.warnings = warningsOf(text, bom, duplicates, duplicate_count)
  return result
}

function invalidUtf8(bytes: Uint8Array, at: number): AppError {
  const prefix = Buffer.from(bytes.buffer, bytes.byteOffset, at).toString('utf8')
  const byte = bytes[at]!.toString(16).toUpperCase().padStart(2, '0')
  const reason = `Invalid UTF-8 sequence starting with byte 0x${byte}`
  const where = locate(prefix, prefix.length)
  return new AppError(
    'ERR_INVALID_JSON',
    `Invalid JSON at line ${where.line}, column ${where.column}: ${reason}.`,
    {
      ...where,
      byte_offset: at,
      reason,
    },
  )
}

// The raw-body form: UTF-8 bytes in. Offsets stay in UTF-16 units of the decoded text, like the JSON
// form, and errors add byte_offset into the body.
export function formatJsonBytes(params: JsonFormatBytesInput): JsonFormatResult {
  const bytes = params.input
  if (bytes.length > MAX_FORMAT_INPUT_BYTES) {
    throw new AppError('ERR_PAYLOAD_TOO_LARGE', undefined, { limit_bytes: MAX_FORMAT_INPUT_BYTES })
  }
  if (!isUtf8(bytes)) {
    const at = invalidUtf8At(bytes)
    if (at >= 0) throw invalidUtf8(bytes, at)
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  try {
    return formatJson({ ...params, input: text })
  } catch (err) {
    if (isAppError(err) && err.code === 'ERR_INVALID_JSON' && err.details) {
      const offset = err.details.offset as number
      const byteOffset = Buffer.byteLength(text.slice(0, offset), 'utf8')
      throw new AppError(err.code, err.message, { ...err.details, byte_offset: byteOffset })
    }
    throw err
  }
}
