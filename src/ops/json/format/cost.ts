// What json/format costs (docs/dispatch.md#cost-models), as the op tells it to exec's cost model
// (src/exec/costs.ts, which decides). Tokenizing costs a few µs per KiB, but what a request costs is its
// output: pretty-printing puts every value on a line indented depth × indent, so 5.6 KB of nested arrays
// at indent 8 asks for 62 MB. The output budget (format.ts) caps that on the pool; inline, only a request
// whose pretty output is known to be small may run.

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
