import { readBracedCodePoint, readHex } from './js-escapes.ts'
import { invalidText } from './shared.ts'

// ASCII stays as it is; every other UTF-16 unit becomes \uXXXX (so astral characters are two escapes, as
// in Java and JSON). The backslash itself is written \\ so that literal text like "\u0041" survives.
export function encodeUnicodeEscape(input: string): string {
  return input.replace(/[\\\u0080-\uffff]/g, (c) =>
    c === '\\' ? '\\\\' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

// Accepts \uXXXX, \u{X...} (up to 10FFFF) and \\; any other backslash sequence is refused rather than guessed.
export function decodeUnicodeEscape(input: string): string {
  const parts: string[] = []
  let copied = 0
  let i = input.indexOf('\\')
  while (i >= 0) {
    let text: string
    let end: number
    if (input[i + 1] === '\\') {
      text = '\\'
      end = i + 2
    } else if (input[i + 1] === 'u') {
      const braced = readBracedCodePoint(input, i + 2)
      const unit = braced ? -1 : readHex(input, i + 2, 4)
      if (!braced && unit < 0) {
        throw invalidText(
          'unicode_escape',
          i,
          '\\u must be followed by four hex digits or {code point ≤ 10FFFF}',
        )
      }
      text = braced ? String.fromCodePoint(braced.cp) : String.fromCharCode(unit)
      end = braced ? braced.end : i + 6
    } else {
      throw invalidText('unicode_escape', i, 'Only \\uXXXX, \\u{...} and \\\\ escapes are recognised')
    }
    parts.push(input.slice(copied, i), text)
    copied = end
    i = input.indexOf('\\', end)
  }
  parts.push(input.slice(copied))
  return parts.join('')
}
