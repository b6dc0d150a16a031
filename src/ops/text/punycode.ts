import punycode from 'punycode/punycode.js'
import { AppError } from '../../errors.ts'
import { invalidText, requireWellFormed } from './shared.ts'

// Budget: DNS allows 63 octets per label (RFC 1035 §2.3.4), so a label converted here may have at most 63
// code points before encoding (checked first: it bounds the RFC 3492 algorithm, quadratic in the label's
// length; 1,024-code-point labels cost 0.35 s a request) and 63 characters once encoded, "xn--" included
// (checked after: then what encode answers, decode takes). Labels left as they are (ASCII labels on
// encode, labels without "xn--" on decode) are not limited.
export const MAX_LABEL_LENGTH = 63
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

// Code points in the label, counted no further than just past the limit.
function labelLength(label: string): number {
  let n = 0
  for (let i = 0; i < label.length && n <= MAX_LABEL_LENGTH; i++) {
    const c = label.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < label.length) i++
    n++
  }
  return n
}

function labelTooLong(at: number): AppError {
  return new AppError(
    'ERR_COMPUTE_LIMIT',
    `Position ${at}: a domain label may have at most ${MAX_LABEL_LENGTH} characters, before and after encoding (DNS's limit); this one has more.`,
    { reason: 'label_length', limit: MAX_LABEL_LENGTH, position: at },
  )
}

function convert(label: string, at: number, run: (label: string) => string, what: string): string {
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
    if (labelLength(label) > MAX_LABEL_LENGTH) throw labelTooLong(at)
    const encoded = `xn--${convert(label, at, punycode.encode, 'input for Punycode')}`
    if (encoded.length > MAX_LABEL_LENGTH) throw labelTooLong(at)
    return encoded
  })
}

// Labels starting with "xn--" (any case) are decoded; other labels are kept as they are.
export function decodePunycode(input: string): string {
  return mapLabels(input, function decodeLabel(label, at) {
    if (!ACE_PREFIX.test(label)) return label
    if (label.length > MAX_LABEL_LENGTH) throw labelTooLong(at)
    return convert(label.slice(4), at, punycode.decode, 'Punycode')
  })
}
