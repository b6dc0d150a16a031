import { decodeHTMLStrict } from 'entities'
import { hexValue, isHexDigit } from './shared.ts'

// Character references in HTML text content, as the WHATWG HTML tokenizer reads them (§13.2.5.72-80).
// Parse errors there are not fatal, so nothing here is refused: what is no reference stays text.

// §13.2.5.80: numeric references to C1 controls mean the windows-1252 character of that byte.
// biome-ignore format: a table
const C1_REMAP = new Map<number, number>([
  [0x80, 0x20ac], [0x82, 0x201a], [0x83, 0x0192], [0x84, 0x201e], [0x85, 0x2026], [0x86, 0x2020],
  [0x87, 0x2021], [0x88, 0x02c6], [0x89, 0x2030], [0x8a, 0x0160], [0x8b, 0x2039], [0x8c, 0x0152],
  [0x8e, 0x017d], [0x91, 0x2018], [0x92, 0x2019], [0x93, 0x201c], [0x94, 0x201d], [0x95, 0x2022],
  [0x96, 0x2013], [0x97, 0x2014], [0x98, 0x02dc], [0x99, 0x2122], [0x9a, 0x0161], [0x9b, 0x203a],
  [0x9c, 0x0153], [0x9e, 0x017e], [0x9f, 0x0178],
])

// The 106 named references the standard also matches without ";" (its "legacy" entries): the Latin-1
// names and AMP, COPY, GT, LT, QUOT, REG.
export const LEGACY_NAMES = new Set(
  (
    'AElig AMP Aacute Acirc Agrave Aring Atilde Auml COPY Ccedil ETH Eacute Ecirc Egrave Euml GT Iacute ' +
    'Icirc Igrave Iuml LT Ntilde Oacute Ocirc Ograve Oslash Otilde Ouml QUOT REG THORN Uacute Ucirc Ugrave ' +
    'Uuml Yacute aacute acirc acute aelig agrave amp aring atilde auml brvbar ccedil cedil cent copy curren ' +
    'deg divide eacute ecirc egrave eth euml frac12 frac14 frac34 gt iacute icirc iexcl igrave iquest iuml ' +
    'laquo lt macr micro middot nbsp not ntilde oacute ocirc ograve ordf ordm oslash otilde ouml para plusmn ' +
    'pound quot raquo reg sect shy sup1 sup2 sup3 szlig thorn times uacute ucirc ugrave uml uuml yacute yen yuml'
  ).split(' '),
)
const LONGEST_LEGACY = 6

export interface Reference {
  text: string
  end: number
}

// §13.2.5.80: 0, surrogates and values past U+10FFFF are U+FFFD; C1 values are remapped; anything else
// (other controls, noncharacters) is that code point.
export function numericCharacter(value: number): string {
  if (value === 0 || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return '\uFFFD'
  return String.fromCodePoint(C1_REMAP.get(value) ?? value)
}

// &#DDDD or &#xHHHH at i (the '&'), ';' optional; undefined without digits ("&#;" stays text).
export function htmlNumericReference(input: string, i: number): Reference | undefined {
  let j = i + 2
  const hex = input[j] === 'x' || input[j] === 'X'
  if (hex) j++
  const start = j
  let value = 0
  for (; j < input.length; j++) {
    const c = input.charCodeAt(j)
    if (hex ? !isHexDigit(c) : c < 0x30 || c > 0x39) break
    // past U+10FFFF the value no longer matters, only that it is out of range
    if (value <= 0x10ffff) value = value * (hex ? 16 : 10) + hexValue(c)
  }
  if (j === start) return undefined
  return { text: numericCharacter(value), end: input[j] === ';' ? j + 1 : j }
}

const ALPHANUMERIC = /[A-Za-z0-9]+/y
// Known references only (a bounded set: the HTML5 table), so repeated entities skip the decoder.
const SEEN = new Map<string, string>()

function lookup(name: string): string | undefined {
  const reference = `&${name};`
  let text = SEEN.get(reference)
  if (text === undefined) {
    text = decodeHTMLStrict(reference)
    if (text === reference) return undefined
    SEEN.set(reference, text)
  }
  return text
}

// §13.2.5.73 in text content: the longest entry of the named reference table that the input starts with:
// "&name;" for every HTML5 name, or a legacy name without ";" even when letters follow ("&copy2024" is
// "©2024", "&notit;" is "¬it;"). undefined when none matches: the '&' stays text.
export function htmlNamedReference(input: string, i: number): Reference | undefined {
  ALPHANUMERIC.lastIndex = i + 1
  const run = ALPHANUMERIC.exec(input)?.[0]
  if (run === undefined) return undefined
  const after = i + 1 + run.length
  if (input[after] === ';') {
    const text = lookup(run)
    if (text !== undefined) return { text, end: after + 1 }
  }
  for (let k = Math.min(run.length, LONGEST_LEGACY); k >= 2; k--) {
    const name = run.slice(0, k)
    if (LEGACY_NAMES.has(name)) return { text: lookup(name)!, end: i + 1 + k }
  }
  return undefined
}
