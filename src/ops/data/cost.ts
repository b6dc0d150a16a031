import type { ConvertInput } from './types.ts'

// What data/convert costs (docs/decisions.md, "Data conversion"), for exec's cost model to decide with.
// The `yaml` package's parser and writer cost the most per byte: a flow sequence of one-digit items read
// and written as JSON, ~2,400 µs/KiB of CPU on the shared machine (in process, best of 3, load ~13 on 2
// cores; `yaml.parse` plus `JSON.stringify` of the same text: ~1,900), and CSV of one-character fields
// written as YAML ~2,200; and a document of 256 bytes costs ~1–1.8 ms all the same (the package builds
// its schema and composer per call). So YAML either side is always pool work, and the cost model is the
// worst of the rest: CSV of one-character fields as JSON, 133–192 µs/KiB (4–64 KiB, warm, load ~9),
// declared 230. What size does not tell is output many times the input: deep nesting, which indents every
// line below it once more when pretty-printed: heavy whatever the size. (YAML's aliases, which expand to
// the output cap from a KiB, are YAML, and so heavy already.)

export const WORST_US_PER_KIB = 230

// Deeper than this, pretty output may be an order of magnitude larger than the input.
const HEAVY_DEPTH = 32

// YAML either side; else one pass over the text at most: whether it may nest deeper than HEAVY_DEPTH
// (brackets outside quoted strings, a TOML key's dots).
export function heavyConvert(body: Pick<ConvertInput, 'input' | 'from' | 'to'>): boolean {
  if (body.from === 'yaml' || body.to === 'yaml') return true
  if (body.from === 'csv') return false
  const text = body.input
  let depth = 0
  let quote = 0
  let dots = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (quote !== 0) {
      if (c === 0x5c && quote === 0x22) i++
      else if (c === quote || c === 0x0a) quote = 0
      continue
    }
    if (c === 0x0a) dots = 0
    else if (c === 0x22 || (c === 0x27 && body.from === 'toml')) quote = c
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > HEAVY_DEPTH) return true
    } else if (c === 0x5d || c === 0x7d) depth--
    else if (c === 0x2e && body.from === 'toml' && ++dots > HEAVY_DEPTH) return true
  }
  return false
}
