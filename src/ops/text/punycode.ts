import punycode from 'punycode/punycode.js'
import { invalidText, requireWellFormed } from './shared.ts'

// DNS allows 63 octets per label; this generous cap only guards the RFC 3492 algorithm, which is quadratic.
export const MAX_LABEL_LENGTH = 1024
// The label separators IDNA2003 and punycode.toASCII accept: full stop and its ideographic/full-width forms.
const SEPARATOR = /[.\u3002\uFF0E\uFF61]/g
const ACE_PREFIX = /^xn--/i

// Applies fn to each label with its position in the input; labels are joined back with '.'.
function mapLabels(input: string, fn: (label: string, at: number) => string): string {
  const out: string[] = []
  let start = 0
  for (const m of input.matchAll(SEPARATOR)) {
    out.push(fn(input.slice(start, m.index), start))
    start = m.index + 1
  }
  out.push(fn(input.slice(start), start))
  return out.join('.')
}

function convert(label: string, at: number, run: (label: string) => string, what: string): string {
  if (label.length > MAX_LABEL_LENGTH) {
    throw invalidText('punycode', at, `The label is longer than ${MAX_LABEL_LENGTH} characters`)
  }
  try {
    return run(label)
  } catch (err) {
    throw invalidText('punycode', at, `The label is not valid ${what}: ${(err as Error).message}`)
  }
}

// Labels with non-ASCII characters become "xn--" + RFC 3492 Punycode, as punycode.toASCII does. No UTS #46
// mapping (case folding, NFC) is applied: the text is converted exactly as given.
export function encodePunycode(input: string): string {
  requireWellFormed(input, 'punycode')
  return mapLabels(input, function encodeLabel(label, at) {
    if (!/[^\0-\x7F]/.test(label)) return label
    return `xn--${convert(label, at, punycode.encode, 'input for Punycode')}`
  })
}

// Labels starting with "xn--" (any case) are decoded; other labels are kept as they are.
export function decodePunycode(input: string): string {
  return mapLabels(input, function decodeLabel(label, at) {
    if (!ACE_PREFIX.test(label)) return label
    return convert(label.slice(4), at, punycode.decode, 'Punycode')
  })
}
