// The decoder's plain-data types, in their own module so the alphabet checks and the decoder both use
// them without importing each other.
export const BASE64_VARIANTS = ['standard', 'url'] as const
export type Base64Variant = (typeof BASE64_VARIANTS)[number]
export const DECODE_VARIANTS = ['auto', ...BASE64_VARIANTS] as const
export type DecodeVariant = (typeof DECODE_VARIANTS)[number]

export interface DecodedBase64 {
  bytes: Buffer
  variant: Base64Variant
}

// A Base64 text read in any number of chunks, as plain data: every error points at its character's
// position in the whole text (a UTF-16 index for `input`, the byte offset for a raw body).
export interface Base64Decoder {
  variant: DecodeVariant
  strict: boolean
  // position of the next character
  position: number
  // where each alphabet's own characters ('+/' or '-_') were first seen, and which one it was
  standardAt: number
  standardChar: number
  urlAt: number
  urlChar: number
  // positions of the first three '='
  pads: number[]
  acc: number
  bits: number
  count: number
  lastData: number
}
