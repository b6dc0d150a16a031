// The otp family's constant lists and bounds, for the ops and their routes alike.

export const OTP_TYPES = ['totp', 'hotp'] as const
export type OtpType = (typeof OTP_TYPES)[number]

// the HMACs of RFC 6238 §1.2 (RFC 4226's SHA-1 and the SHA-2 variants), as the Key Uri Format names them
export const OTP_ALGORITHMS = ['SHA1', 'SHA256', 'SHA512'] as const
export type OtpAlgorithm = (typeof OTP_ALGORITHMS)[number]

export const OTP_DIGITS = { min: 6, max: 8, default: 6 } as const
export const OTP_PERIOD = { min: 1, max: 86_400, default: 30 } as const
// steps a verification looks at on each side (TOTP) or ahead (HOTP)
export const OTP_WINDOW = { max: 5, totp: 1, hotp: 0 } as const
// the bytes of a secret to verify or generate with; a new secret's bytes (RFC 4226 §4: at least 128 bits,
// 160 recommended)
export const OTP_SECRET_CHARS = 1024
export const NEW_SECRET_BYTES = { min: 16, max: 64, default: 20 } as const
// a counter is an 8-byte integer (RFC 4226 §5.1); JSON carries it exactly up to 2^53 - 1
export const MAX_COUNTER = Number.MAX_SAFE_INTEGER
// Unix seconds up to 9999-12-31T23:59:59Z
export const MAX_OTP_TIME = 253_402_300_799
