import type { ConvertInput } from './types.ts'

// What data/convert costs (docs/decisions.md, "Data conversion"), for exec's cost model to decide with.
// Per KiB, the YAML package's parser costs the most: a flow sequence of one-digit items, read and written
// as JSON, measured at ~2,400 µs/KiB of CPU on the shared machine (in process, 3 runs, load ~13 on 2
// cores; `yaml.parse` plus `JSON.stringify` of the same text: ~1,900). Any body past a KiB is thus pool
// work. What size does not tell is output many times the input: YAML aliases (a KiB expands to the output
// cap, 1 MiB at least) and deep nesting (each level indents every line below it once more, pretty-printed
// or as YAML): those bodies are heavy whatever their size.

export const WORST_US_PER_KIB = 2400

// Deeper than this, pretty output may be an order of magnitude larger than the input.
const HEAVY_DEPTH = 32

// An alias: "*" then an anchor's first character, where a node may start (YAML 1.2, 6.9.2, 7.1).
const ALIAS = /(?:^|[\s[{,:-])\*[^\s,[\]{}]/

// One pass over the text at most: whether it may nest deeper than HEAVY_DEPTH (brackets outside quoted
// strings, a YAML block's indentation, a TOML key's dots) or, as YAML, holds an alias.
export function heavyConvert(body: Pick<ConvertInput, 'input' | 'from'>): boolean {
  const text = body.input
  if (body.from === 'yaml' && ALIAS.test(text)) return true
  if (body.from === 'csv') return false
  let depth = 0
  let quote = 0
  let lineStart = true
  let indent = 0
  let dots = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (quote !== 0) {
      if (c === 0x5c && quote === 0x22) i++
      else if (c === quote || c === 0x0a) quote = 0
      continue
    }
    if (c === 0x0a) {
      lineStart = true
      indent = 0
      dots = 0
      continue
    }
    if (lineStart && c === 0x20) {
      if (++indent > 2 * HEAVY_DEPTH) return true
      continue
    }
    lineStart = false
    if (c === 0x22 || (c === 0x27 && body.from !== 'json')) quote = c
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > HEAVY_DEPTH) return true
    } else if (c === 0x5d || c === 0x7d) depth--
    else if (c === 0x2e && body.from === 'toml' && ++dots > HEAVY_DEPTH) return true
  }
  return false
}
