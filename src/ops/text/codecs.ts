import { AppError } from '../../errors.ts'
import {
  type ByteOptions,
  checkByteOptions,
  decodeBytesFrom,
  encodeBytesAs,
  isByteFormat,
} from './byte-formats.ts'
import { decodeJsonString, decodeJsString, encodeJsonString, encodeJsString } from './js-escapes.ts'
import { decodeHtml, decodeXml, encodeHtml, encodeXml } from './markup.ts'
import { decodePunycode, encodePunycode } from './punycode.ts'
import { decodeQuotedPrintable, encodeQuotedPrintable } from './quoted-printable.ts'
import { type ByteFormat, TEXT_FORMATS, type TextFormat } from './types.ts'
import { decodeUnicodeEscape, encodeUnicodeEscape } from './unicode-escape.ts'
import { decodeUrl, decodeUrlForm, encodeUrl, encodeUrlForm } from './url.ts'

export { TEXT_FORMATS, type TextFormat }

export interface TextCodecInput extends ByteOptions {
  input: string
  format: TextFormat
}

export interface TextCodecResult {
  output: string
  format: TextFormat
}

// Works on UTF-16 units, so it is its own inverse and leaves everything but A-Z a-z untouched.
function rot13(input: string): string {
  return input.replace(/[A-Za-z]/g, (c) => {
    const base = c <= 'Z' ? 65 : 97
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base)
  })
}

type TextOnly = Exclude<TextFormat, ByteFormat>

const CODECS: Record<TextOnly, { encode: (input: string) => string; decode: (input: string) => string }> = {
  url: { encode: encodeUrl, decode: decodeUrl },
  url_form: { encode: encodeUrlForm, decode: decodeUrlForm },
  html: { encode: encodeHtml, decode: decodeHtml },
  xml: { encode: encodeXml, decode: decodeXml },
  json_string: { encode: encodeJsonString, decode: decodeJsonString },
  js_string: { encode: encodeJsString, decode: decodeJsString },
  unicode_escape: { encode: encodeUnicodeEscape, decode: decodeUnicodeEscape },
  punycode: { encode: encodePunycode, decode: decodePunycode },
  quoted_printable: { encode: encodeQuotedPrintable, decode: decodeQuotedPrintable },
  rot13: { encode: rot13, decode: rot13 },
}

// Ops also run from job params, so the format is checked here too, never trusted as a property key.
function checkFormat(format: string): TextFormat {
  if (!(TEXT_FORMATS as readonly string[]).includes(format)) {
    throw new AppError('ERR_VALIDATION', `Unknown text format "${format}"`, {
      issues: [{ path: 'format', message: `expected one of ${TEXT_FORMATS.join(', ')}` }],
    })
  }
  return format as TextFormat
}

export function textEncode(params: TextCodecInput): TextCodecResult {
  const format = checkFormat(params.format)
  checkByteOptions(format, params)
  const output = isByteFormat(format)
    ? encodeBytesAs(format, params.input, params)
    : CODECS[format].encode(params.input)
  return { output, format }
}

export function textDecode(params: TextCodecInput): TextCodecResult {
  const format = checkFormat(params.format)
  checkByteOptions(format, params)
  const output = isByteFormat(format)
    ? decodeBytesFrom(format, params.input, params)
    : CODECS[format].decode(params.input)
  return { output, format }
}
