import { Buffer, isUtf8 } from 'node:buffer'
import type { JsonFormatResult } from './format.ts'

// The JSON text of a formatJson result as UTF-8 bytes, made from the bytes the printer wrote rather than
// from the output string. JSON.stringify escapes only ASCII (quotes, backslashes, controls) and lone
// surrogates, which valid UTF-8 cannot hold; so the printed bytes, read as Latin-1 (one character per
// byte, a one-byte string), escaped by JSON.stringify and written back as Latin-1 are the UTF-8 of
// JSON.stringify(output). On a 15 MiB {input} minify on a pool thread (10 MiB of output, non-ASCII in
// it) that is ~25 ms where JSON.stringify of the output string and the UTF-8 encoding of its text took
// ~50. The bytes are those JSON.stringify and a UTF-8 encoder give, exactly
// (test/ops/json/format/envelope.test.ts).

// the printed bytes of each result formatJson returns (format.ts), until the result is collected
const printedOf = new WeakMap<JsonFormatResult, Uint8Array>()

export function keepPrinted(result: JsonFormatResult, bytes: Uint8Array): void {
  printedOf.set(result, bytes)
}

// The UTF-8 bytes of a result's output, for the caller to keep or move: a copy of the printed bytes when at
// hand (the result's lazy output string is decoded from them, so they stay the result's), else the string
// encoded.
export function outputBytes(result: JsonFormatResult): Uint8Array {
  const printed = printedOf.get(result)
  return printed ? new Uint8Array(printed) : Buffer.from(result.output, 'utf8')
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
}

// JSON.stringify(string) as UTF-8 bytes, from the string's UTF-8 bytes (valid UTF-8).
export function jsonStringBytes(text: Uint8Array): Uint8Array {
  return Buffer.from(JSON.stringify(latin1(text)), 'latin1')
}

// JSON.stringify(result) as UTF-8 bytes (an ArrayBuffer of its own), or undefined when the result's
// printed bytes are not at hand or not valid UTF-8 (then the output string is what JSON.stringify reads).
export function formatResultJson(result: JsonFormatResult): Uint8Array | undefined {
  const text = printedOf.get(result)
  if (text === undefined || !isUtf8(text)) return undefined
  // the members after `output`, as JSON.stringify writes them (output is the result's first member), read
  // without reading `output` itself: its string is never made (format.ts)
  const others: Record<string, unknown> = { output: '' }
  for (const key of Object.keys(result))
    if (key !== 'output') others[key] = result[key as keyof JsonFormatResult]
  const rest = JSON.stringify(others)
  const lead = '{"output":'
  if (!rest.startsWith(`${lead}""`)) return undefined
  const output = JSON.stringify(latin1(text))
  const tail = rest.slice(lead.length + 2)
  const out = Buffer.from(new ArrayBuffer(lead.length + output.length + Buffer.byteLength(tail)))
  out.write(lead, 0, 'latin1')
  out.write(output, lead.length, 'latin1')
  out.write(tail, lead.length + output.length, 'utf8')
  return out
}
