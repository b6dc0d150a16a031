import {
  type ByteScanner,
  decodeScannedUtf8,
  emitUtf8Char,
  hexValue,
  invalidText,
  isHexDigit,
  requireWellFormed,
} from './shared.ts'

// Percent-decoding that refuses what decodeURIComponent would throw on, with the position of the culprit.
// In form mode '+' is a space (WHATWG application/x-www-form-urlencoded); '&' and '=' are kept as
// they are, because the input is one encoded value, not a whole query.
function percentScanner(format: string, plusAsSpace: boolean): ByteScanner {
  return function scanPercent(input, emit) {
    let i = 0
    while (i < input.length) {
      const c = input.charCodeAt(i)
      if (c === 0x25) {
        const hi = input.charCodeAt(i + 1)
        const lo = input.charCodeAt(i + 2)
        if (!isHexDigit(hi) || !isHexDigit(lo)) {
          throw invalidText(format, i, "'%' must be followed by two hex digits")
        }
        emit(hexValue(hi) * 16 + hexValue(lo), i)
        i += 3
      } else if (c === 0x2b && plusAsSpace) {
        emit(0x20, i)
        i++
      } else {
        i += emitUtf8Char(input, i, format, emit)
      }
    }
  }
}

const scanComponent = percentScanner('url', false)
const scanForm = percentScanner('url_form', true)

// encodeURIComponent: everything but A-Z a-z 0-9 - _ . ! ~ * ' ( ) is percent-encoded as UTF-8.
export function encodeUrl(input: string): string {
  requireWellFormed(input, 'url')
  return encodeURIComponent(input)
}

export function decodeUrl(input: string): string {
  return decodeScannedUtf8(input, 'url', scanComponent)
}

// The WHATWG URLSearchParams serializer: space → '+', only A-Z a-z 0-9 * - . _ left as they are.
export function encodeUrlForm(input: string): string {
  requireWellFormed(input, 'url_form')
  return new URLSearchParams([['', input]]).toString().slice(1)
}

export function decodeUrlForm(input: string): string {
  return decodeScannedUtf8(input, 'url_form', scanForm)
}
