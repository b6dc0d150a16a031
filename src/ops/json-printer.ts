import { AppError } from '../errors.ts'
import { ARR_CLOSE, ARR_OPEN, KEY, OBJ_CLOSE, OBJ_OPEN, type TokenList } from './json-tokens.ts'

export interface PrintStyle {
  pretty: boolean
  // one level of indentation: '' (newlines only), 1–8 spaces, or a tab
  unit: string
  max_chars: number
}

const CACHED_DEPTHS = 64

function tooLarge(max: number): AppError {
  return new AppError(
    'ERR_COMPUTE_LIMIT',
    `The formatted output would exceed ${max} characters; use mode "minify" or a smaller indent.`,
    { limit: 'output_size', max_chars: max },
  )
}

// Separator plus indentation for a depth; the shallow ones, used for almost every token, are made once.
function indentation(prefix: string, unit: string): (depth: number) => string {
  const cache: string[] = []
  return function indentAt(depth: number): string {
    if (depth >= CACHED_DEPTHS) return prefix + unit.repeat(depth)
    let made = cache[depth]
    if (made === undefined) {
      made = prefix + unit.repeat(depth)
      cache[depth] = made
    }
    return made
  }
}

// Writes the tokens back out with new whitespace. Token text is copied from the input as written, so
// numbers and string escapes are exactly what the client sent. `order` (from sort_keys) permutes the
// tokens; null prints them as they came. A flat loop over tokens: no recursion whatever the depth.
// Where the input already has the wanted separator between two consecutive tokens, the whole run is
// copied with one slice (minifying minified text, or re-indenting text indented the same way, is a copy).
export function printTokens(
  text: string,
  tokens: TokenList,
  order: Int32Array | null,
  style: PrintStyle,
): string {
  const { pretty, unit, max_chars: max } = style
  const lineBreak = indentation('\n', unit)
  const commaBreak = indentation(',\n', unit)
  const colon = pretty ? ': ' : ':'
  const { kind: kinds, start: starts, end: ends } = tokens
  let out = ''
  let depth = 0
  let afterOpen = false
  let afterKey = false
  let runStart = 0
  let prev = -1
  for (let p = 0; p < tokens.count; p++) {
    if (out.length > max) throw tooLarge(max)
    const t = order === null ? p : order[p]!
    const kind = kinds[t]! & 0x0f
    let sep = ''
    if (kind === OBJ_CLOSE || kind === ARR_CLOSE) {
      depth--
      if (pretty && !afterOpen) sep = lineBreak(depth)
      afterOpen = false
    } else {
      if (afterKey) sep = colon
      else if (afterOpen) sep = pretty ? lineBreak(depth) : ''
      else if (depth > 0) sep = pretty ? commaBreak(depth) : ','
      afterOpen = kind === OBJ_OPEN || kind === ARR_OPEN
      if (afterOpen) depth++
      afterKey = kind === KEY
    }
    if (prev >= 0) {
      const gap = ends[prev]!
      const contiguous = t === prev + 1 && gap + sep.length === starts[t]! && text.startsWith(sep, gap)
      if (!contiguous) {
        out += text.slice(runStart, gap)
        out += sep
        runStart = starts[t]!
      }
    } else {
      runStart = starts[t]!
    }
    prev = t
  }
  if (prev >= 0) out += text.slice(runStart, ends[prev]!)
  if (out.length > max) throw tooLarge(max)
  return out
}
