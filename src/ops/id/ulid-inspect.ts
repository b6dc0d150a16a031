import { AppError } from '../../errors.ts'
import { formatIsoUtc } from '../time/format.ts'
import { ULID_ALPHABET, ULID_LENGTH } from './types.ts'
import { formatUuid } from './uuid-parse.ts'

export interface UlidInspectInput {
  ulid: string
}

export interface UlidInspectResult {
  ulid: string
  canonical: boolean
  unix_ms: number
  timestamp: string
  randomness: string
  randomness_hex: string
  uuid: string
}

// Crockford's decoding, which the ULID spec names: any case, and I L read as 1, O as 0 (what people
// misread); U and everything else refused. docs/decisions.md, "ULID".
const VALUES = new Int8Array(128).fill(-1)
for (let v = 0; v < 32; v++) {
  const c = ULID_ALPHABET.charCodeAt(v)
  VALUES[c] = v
  VALUES[c | 0x20] = v
}
for (const [ch, v] of [
  ['I', 1],
  ['L', 1],
  ['O', 0],
] as const) {
  VALUES[ch.charCodeAt(0)] = v
  VALUES[ch.toLowerCase().charCodeAt(0)] = v
}

function invalid(position: number, reason: string): AppError {
  return new AppError('ERR_INVALID_ULID', `\`ulid\` is not a ULID: ${reason} at position ${position}`, {
    field: 'ulid',
    position,
    reason,
  })
}

// The 26 characters as values 0–31, refusing at the first that cannot be: a wrong length, a character
// outside the alphabet, a first character above 7 (the time would not fit its 48 bits).
function valuesOf(text: string): number[] {
  const values: number[] = []
  for (let i = 0; i < Math.min(text.length, ULID_LENGTH); i++) {
    const c = text.charCodeAt(i)
    const v = c < 128 ? VALUES[c]! : -1
    if (v < 0) throw invalid(i, `'${text[i]}' is not a Crockford Base32 character`)
    values.push(v)
  }
  if (text.length !== ULID_LENGTH) {
    throw invalid(
      Math.min(text.length, ULID_LENGTH),
      `expected ${ULID_LENGTH} characters, got ${text.length}`,
    )
  }
  if (values[0]! > 7) throw invalid(0, 'the first character is at most 7 (a 48-bit time)')
  return values
}

export function inspectUlid(input: UlidInspectInput): UlidInspectResult {
  const values = valuesOf(input.ulid)
  const ulid = values.map((v) => ULID_ALPHABET[v]).join('')
  // 130 bits, the top 2 zero: the 16 bytes, most significant first
  let n = 0n
  for (const v of values) n = (n << 5n) | BigInt(v)
  const bytes = Buffer.from(n.toString(16).padStart(32, '0'), 'hex')
  const ms = bytes.readUIntBE(0, 6)
  return {
    ulid,
    canonical: ulid === input.ulid,
    unix_ms: ms,
    timestamp: formatIsoUtc(BigInt(ms) * 1_000_000n),
    randomness: ulid.slice(10),
    randomness_hex: bytes.subarray(6).toString('hex'),
    uuid: formatUuid(bytes),
  }
}
