import { htmlNamedReference, htmlNumericReference } from './html-references.ts'
import { hexValue, invalidText, isHexDigit, requireWellFormed } from './shared.ts'

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}
const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
}
const XML_ENTITIES = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
])

// XML 1.0 Char production: C0 controls other than tab/LF/CR, surrogates, U+FFFE and U+FFFF cannot appear,
// not even as character references.
const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u

function isXmlChar(cp: number): boolean {
  return cp <= 0x10ffff && !NOT_XML_CHAR.test(String.fromCodePoint(cp))
}

function requireXmlChars(input: string): void {
  const bad = NOT_XML_CHAR.exec(input)
  if (bad) throw invalidText('xml', bad.index, 'The character is not allowed in XML 1.0')
}

// &#DDDD; or &#xHHHH; starting at i (the '&'); strict about digits and the ';' in both formats.
function numericReference(
  input: string,
  i: number,
  format: string,
  allowed: (cp: number) => boolean,
): Reference {
  let j = i + 2
  const hex = input[j] === 'x' || input[j] === 'X'
  if (hex) j++
  const start = j
  let value = 0
  for (; j < input.length; j++) {
    const c = input.charCodeAt(j)
    if (hex ? !isHexDigit(c) : c < 0x30 || c > 0x39) break
    if (value <= 0x10ffff) value = value * (hex ? 16 : 10) + hexValue(c)
  }
  if (j === start) throw invalidText(format, i, 'A numeric character reference needs digits')
  if (input[j] !== ';') throw invalidText(format, i, "A numeric character reference must end with ';'")
  if (!allowed(value)) throw invalidText(format, i, 'The character reference is not an allowed character')
  return { text: String.fromCodePoint(value), end: j + 1 }
}

type Reference = { text: string; end: number }
// undefined: the '&' starts no reference and stays as it is
type Resolver = (input: string, i: number) => Reference | undefined

function decodeReferences(input: string, numeric: Resolver, named: Resolver) {
  const parts: string[] = []
  let copied = 0
  let i = input.indexOf('&')
  while (i >= 0) {
    const ref = input[i + 1] === '#' ? numeric(input, i) : named(input, i)
    if (ref === undefined) {
      i = input.indexOf('&', i + 1)
      continue
    }
    parts.push(input.slice(copied, i), ref.text)
    copied = ref.end
    i = input.indexOf('&', ref.end)
  }
  parts.push(input.slice(copied))
  return parts.join('')
}

const XML_NAME = /&([A-Za-z_:][\w.:-]*);/y

// XML has no undeclared entities and no bare '&': both make a document not well-formed.
function xmlNamed(input: string, i: number): Reference {
  XML_NAME.lastIndex = i
  const m = XML_NAME.exec(input)
  if (!m) throw invalidText('xml', i, "A bare '&' must be written &amp;")
  const text = XML_ENTITIES.get(m[1]!)
  if (text === undefined) {
    throw invalidText('xml', i, `Unknown entity &${m[1]}; (XML predefines amp, lt, gt, quot, apos)`)
  }
  return { text, end: i + m[0].length }
}

export function encodeHtml(input: string): string {
  requireWellFormed(input, 'html')
  return input.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!)
}

// As an HTML parser reads text content (see html-references.ts): never refuses anything.
export function decodeHtml(input: string): string {
  return decodeReferences(input, htmlNumericReference, htmlNamedReference)
}

export function encodeXml(input: string): string {
  requireXmlChars(input)
  return input.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!)
}

export function decodeXml(input: string): string {
  requireXmlChars(input)
  return decodeReferences(input, (s, i) => numericReference(s, i, 'xml', isXmlChar), xmlNamed)
}
