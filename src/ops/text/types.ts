// The text family's constant lists, for the ops and their routes alike.

// Formats that carry bytes: encoded from the input's bytes (its UTF-8, or input_encoding), decoded to bytes
// answered as UTF-8 text (or in output_encoding).
export const BYTE_FORMATS = [
  'hex',
  'binary',
  'base32',
  'base32hex',
  'base32_crockford',
  'base58',
  'ascii85',
  'z85',
] as const
export type ByteFormat = (typeof BYTE_FORMATS)[number]

export const BASE32_FORMATS = ['base32', 'base32hex', 'base32_crockford'] as const
export type Base32Format = (typeof BASE32_FORMATS)[number]

// the byte formats whose decoding has a strict mode, and those whose encoding pads
export const STRICT_FORMATS = [...BASE32_FORMATS, 'base58', 'ascii85', 'z85'] as const
export const PADDED_FORMATS = ['base32', 'base32hex'] as const

export const TEXT_FORMATS = [
  'url',
  'url_form',
  'html',
  'xml',
  'json_string',
  'js_string',
  'unicode_escape',
  'hex',
  'binary',
  'punycode',
  'quoted_printable',
  'rot13',
  'base32',
  'base32hex',
  'base32_crockford',
  'base58',
  'ascii85',
  'z85',
] as const
export type TextFormat = (typeof TEXT_FORMATS)[number]

export const NORMAL_FORMS = ['NFC', 'NFD', 'NFKC', 'NFKD'] as const
export type NormalForm = (typeof NORMAL_FORMS)[number]
