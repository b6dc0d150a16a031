// The id family's plain types and limits, for the ops and their routes alike.

export const UUID_VERSIONS = [1, 3, 4, 5, 6, 7] as const
export type UuidVersion = (typeof UUID_VERSIONS)[number]
export const UUID_FORMATS = ['standard', 'compact', 'urn', 'upper'] as const
export type UuidFormat = (typeof UUID_FORMATS)[number]
export const MAX_UUID_COUNT = 1000

export const NANOID_SIZE = { min: 2, max: 255, default: 21 } as const
export const NANOID_ALPHABET = { min: 2, max: 256 } as const
export const MAX_NANOID_COUNT = 1000

// Crockford's Base32 alphabet, the ULID spec's (no I, L, O, U)
export const ULID_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
export const ULID_LENGTH = 26
