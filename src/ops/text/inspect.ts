import { loneSurrogateAt } from '../encoding.ts'

export interface InspectInput {
  input: string
}

export interface InspectResult {
  utf16_units: number
  code_points: number
  graphemes: number
  words: number
  lines: number
  utf8_bytes: number
  well_formed: boolean
  lone_surrogate_position: number | null
  ascii: boolean
  has_bom: boolean
  line_endings: { lf: number; crlf: number; cr: number }
  control_characters: number
  format_characters: number
  bidi_controls: number
  normalized: { nfc: boolean; nfd: boolean; nfkc: boolean; nfkd: boolean }
}

// made on first use: the segmenters' ICU break data is ~3 MiB of RSS a process pays only once it inspects
let segmenters: { graphemes: Intl.Segmenter; words: Intl.Segmenter } | undefined
const segmenter = () =>
  (segmenters ??= {
    graphemes: new Intl.Segmenter(undefined, { granularity: 'grapheme' }),
    words: new Intl.Segmenter(undefined, { granularity: 'word' }),
  })

// C0/C1 controls other than tab, LF and CR: usually pasted by accident, invisible in most editors.
const CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]/g
// General Category Cf: zero-width spaces and joiners, soft hyphen, BOM, bidi controls.
const FORMAT = /\p{Cf}/gu
// Embeddings, overrides and isolates (and the marks) that can reorder how text displays ("Trojan Source").
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g
const LINE_BREAK = /\r\n|\n|\r/g

function count(input: string, pattern: RegExp): number {
  let n = 0
  for (const _ of input.matchAll(pattern)) n++
  return n
}

function lineEndings(input: string): { lf: number; crlf: number; cr: number } {
  const endings = { lf: 0, crlf: 0, cr: 0 }
  for (const m of input.matchAll(LINE_BREAK)) {
    if (m[0] === '\r\n') endings.crlf++
    else if (m[0] === '\n') endings.lf++
    else endings.cr++
  }
  return endings
}

// Counts the way editors and people mean them. Lines: a final line break ends the last line rather than
// starting an empty one (POSIX), so "a\n" is 1 line and "" is 0. UTF-8 bytes: a lone surrogate counts as the
// 3 bytes of the U+FFFD that replaces it in any UTF-8 encoder (and well_formed is false).
export function inspectText(params: InspectInput): InspectResult {
  const input = params.input
  const endings = lineEndings(input)
  const breaks = endings.lf + endings.crlf + endings.cr
  const endsWithBreak = /[\r\n]$/.test(input)
  let codePoints = 0
  for (const _ of input) codePoints++
  let graphemeCount = 0
  for (const _ of segmenter().graphemes.segment(input)) graphemeCount++
  let wordCount = 0
  for (const s of segmenter().words.segment(input)) if (s.isWordLike) wordCount++
  const lone = loneSurrogateAt(input)
  return {
    utf16_units: input.length,
    code_points: codePoints,
    graphemes: graphemeCount,
    words: wordCount,
    lines: input.length === 0 ? 0 : breaks + (endsWithBreak ? 0 : 1),
    utf8_bytes: Buffer.byteLength(input, 'utf8'),
    well_formed: lone < 0,
    lone_surrogate_position: lone < 0 ? null : lone,
    ascii: /^[\0-\x7F]*$/.test(input),
    has_bom: input.charCodeAt(0) === 0xfeff,
    line_endings: endings,
    control_characters: count(input, CONTROL),
    format_characters: count(input, FORMAT),
    bidi_controls: count(input, BIDI),
    normalized: {
      nfc: input.normalize('NFC') === input,
      nfd: input.normalize('NFD') === input,
      nfkc: input.normalize('NFKC') === input,
      nfkd: input.normalize('NFKD') === input,
    },
  }
}
