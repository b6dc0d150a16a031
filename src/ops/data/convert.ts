import { isUtf8 } from 'node:buffer'
import { AppError } from '../../errors.ts'
import { loneSurrogateAt } from '../encoding.ts'
import { outputCap } from '../json/format/format.ts'
import { invalidUtf8At } from '../utf8-error.ts'
import { RFC_4180 } from './csv/dialect.ts'
import { readCsv } from './csv/read.ts'
import { writeCsv } from './csv/write.ts'
import { readJson } from './json/read.ts'
import { writeJson } from './json/write.ts'
import { outputTooLarge } from './model/errors.ts'
import type { DataValue } from './model/value.ts'
import { checkExpansion } from './size.ts'
import { readToml } from './toml/read.ts'
import { writeToml } from './toml/write.ts'
import type { ConvertBounds, ConvertInput, ConvertOptions, ConvertResult, DataFormat } from './types.ts'
import { readYaml } from './yaml/read.ts'
import { writeYaml } from './yaml/write.ts'

// POST /v1/data/convert: any of JSON, YAML 1.2, TOML 1.0 and CSV (RFC 4180) to any other (or itself),
// through the one value model (value.ts), exactly or refused (docs/decisions.md, "Data conversion").

// Nesting: the YAML package's composer and writer recurse once per level (a main thread's stack ends
// somewhere past ~1,100 levels of flow sequences), so deeper documents are refused up front; 512 leaves
// more than half of that stack free and is json/diff's bound too. json/format's (2^24) is a tokenizer's,
// which keeps one byte a level.
export const MAX_DEPTH = 512

// The output cap of json/format's one-shot form: 16× the input, at least 1 MiB, at most 256 MiB.
export function defaultBounds(inputBytes: number): ConvertBounds {
  return { maxDepth: MAX_DEPTH, maxOutputBytes: outputCap(inputBytes, true) }
}

type OptionName = keyof ConvertOptions

// Which conversions each option applies to: the formats it is read for, and which side they must be on.
const APPLIES: Record<OptionName, { formats: DataFormat[]; side: 'from' | 'to' | 'either' }> = {
  indent: { formats: ['json', 'yaml'], side: 'to' },
  documents: { formats: ['yaml'], side: 'either' },
  delimiter: { formats: ['csv'], side: 'either' },
  quote: { formats: ['csv'], side: 'either' },
  header: { formats: ['csv'], side: 'either' },
  types: { formats: ['csv'], side: 'from' },
  nested: { formats: ['csv'], side: 'to' },
}

function invalidOption(name: string, message: string): AppError {
  return new AppError('ERR_VALIDATION', `options.${name} ${message}.`, {
    issues: [{ path: `options.${name}`, message }],
  })
}

// Deny by default: an option for a format the conversion does not involve is refused, not ignored.
function checkOptions(from: DataFormat, to: DataFormat, options: ConvertOptions): void {
  for (const name of Object.keys(options) as OptionName[]) {
    if (options[name] === undefined) continue
    const { formats, side } = APPLIES[name]
    const applies = (side !== 'to' && formats.includes(from)) || (side !== 'from' && formats.includes(to))
    if (!applies) {
      const where = side === 'either' ? 'from or to' : side
      throw invalidOption(name, `applies only when ${where} is ${formats.join(' or ')}`)
    }
  }
  if (to === 'yaml' && (options.indent === 0 || options.indent === '\t')) {
    throw invalidOption('indent', 'must be 1 to 8 spaces for YAML')
  }
  const delimiter = options.delimiter ?? RFC_4180.delimiter
  const quote = options.quote ?? RFC_4180.quote
  if (delimiter === quote) throw invalidOption('quote', 'must differ from the delimiter')
}

function read(from: DataFormat, text: string, options: ConvertOptions, bounds: ConvertBounds) {
  const shared = new Set<object>()
  let value: DataValue
  if (from === 'json') value = readJson(text, bounds.maxDepth)
  else if (from === 'toml') value = readToml(text, bounds.maxDepth)
  else if (from === 'csv') {
    value = readCsv(text, {
      delimiter: options.delimiter ?? RFC_4180.delimiter,
      quote: options.quote ?? RFC_4180.quote,
      header: options.header ?? RFC_4180.header,
      infer: options.types === 'infer',
    })
  } else {
    const read = readYaml(text, options.documents === 'stream', bounds.maxDepth)
    value = read.value
    for (const container of read.shared) shared.add(container)
  }
  return { value, shared }
}

function write(to: DataFormat, value: DataValue, options: ConvertOptions, max: number): string {
  if (to === 'json') return writeJson(value, options.indent ?? 2, max)
  if (to === 'toml') return writeToml(value, max)
  if (to === 'csv') {
    return writeCsv(
      value,
      {
        delimiter: options.delimiter ?? RFC_4180.delimiter,
        quote: options.quote ?? RFC_4180.quote,
        header: options.header ?? RFC_4180.header,
        flatten: options.nested === 'flatten',
      },
      max,
    )
  }
  return writeYaml(value, {
    indent: typeof options.indent === 'number' ? options.indent : 2,
    stream: options.documents === 'stream',
    maxBytes: max,
  })
}

export function convertData(params: ConvertInput, bounds: ConvertBounds): ConvertResult {
  const { from, to } = params
  const options = params.options ?? {}
  checkOptions(from, to, options)
  // YAML, TOML and CSV are Unicode text: a lone surrogate is no character of it (JSON's strings may
  // hold one, escaped, and JSON writes it back so)
  const lone = from === 'json' ? -1 : loneSurrogateAt(params.input)
  if (lone >= 0) {
    throw new AppError('ERR_INVALID_ENCODING', `The input holds a lone surrogate at ${lone}.`, {
      field: 'input',
      encoding: 'utf8',
      position: lone,
    })
  }
  // a byte order mark is an encoding's mark, not content (YAML 1.2 5.2, TOML 1.0, RFC 8259 8.1 may ignore it)
  const text = params.input.charCodeAt(0) === 0xfeff ? params.input.slice(1) : params.input
  const { value, shared } = read(from, text, options, bounds)
  // what aliases expand to is weighed before anything is written; and the YAML package's writer, which
  // stops at no cap, is only given what the cap would hold
  if (shared.size > 0 || to === 'yaml') {
    const indent =
      to === 'json' || to === 'yaml' ? (typeof options.indent === 'number' ? options.indent : 2) : 0
    checkExpansion(value, shared, bounds, indent)
  }
  const output = write(to, value, options, bounds.maxOutputBytes)
  const bytes = Buffer.byteLength(output)
  if (bytes > bounds.maxOutputBytes) throw outputTooLarge(bounds.maxOutputBytes)
  return { output, bytes }
}

// The raw-body form: the input as UTF-8 bytes.
export function convertBytes(
  params: Omit<ConvertInput, 'input'> & { input: Uint8Array },
  bounds: ConvertBounds,
): ConvertResult {
  const bytes = params.input
  if (!isUtf8(bytes)) {
    const at = invalidUtf8At(bytes)
    throw new AppError('ERR_INVALID_ENCODING', `The body is not UTF-8 (byte ${at}).`, {
      field: 'body',
      encoding: 'utf8',
      position: at,
    })
  }
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  return convertData({ ...params, input }, bounds)
}
