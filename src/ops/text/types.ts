// The text family's constant lists, for the ops and their routes alike.

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
] as const
export type TextFormat = (typeof TEXT_FORMATS)[number]

export const NORMAL_FORMS = ['NFC', 'NFD', 'NFKC', 'NFKD'] as const
export type NormalForm = (typeof NORMAL_FORMS)[number]
