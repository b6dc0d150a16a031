import type { JsonFormatInput } from './format.ts'

// The cost model of json/format (docs/dispatch.md#cost-models). Tokenizing costs a few µs per KiB, but
// what a request costs is its output: pretty-printing puts every value on a line indented depth × indent,
// so 5.6 KB of nested arrays at indent 8 asks for 62 MB. The output budget (format.ts) caps that on the
// pool; inline, only a request whose pretty output is known to be small may run.

// Inline requests write at most this much pretty output (writing and serializing it takes about 1 ms).
export const INLINE_OUTPUT_BYTES = 64 * 1024
// sort_keys holds and sorts every object: inline only for inputs this small (measured: bench/cost-models.ts).
export const INLINE_SORT_BYTES = 8 * 1024

const QUOTE = 0x22
const BACKSLASH = 0x5c

// An estimate of the pretty output's size, from one pass over the text without tokenizing: each
// bracket and comma outside strings starts a line indented by its depth (tokens counted as one byte a
// UTF-16 unit: an estimate, not a bound, for non-ASCII text). It stops counting past `stop`.
export function prettyOutputBound(text: string, indent: number | '\t', stop: number): number {
  const width = indent === '\t' ? 1 : indent
  let bytes = text.length
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length && bytes <= stop; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) {
      inString = true
    } else if (c === 0x5b || c === 0x7b) {
      depth++
      bytes += 1 + depth * width
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--
      bytes += 1 + depth * width
    } else if (c === 0x2c) {
      bytes += 2 + depth * width
    }
  }
  return bytes
}

// True when the request must not run inline: sort_keys of more than a few KiB, or a pretty output that
// may pass INLINE_OUTPUT_BYTES. Called on the event loop, so it is one linear pass at most, and none for
// inputs that go to the pool by size anyway.
export function formatIsHeavy(input: JsonFormatInput, poolAbove: number): boolean {
  const text = input.input
  if (typeof text !== 'string' || text.length >= poolAbove) return true
  if (input.sort_keys === true && text.length > INLINE_SORT_BYTES) return true
  if (input.mode === 'minify') return false
  return prettyOutputBound(text, input.indent ?? 2, INLINE_OUTPUT_BYTES) > INLINE_OUTPUT_BYTES
}
