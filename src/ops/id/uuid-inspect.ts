import { formatIsoUtc } from '../time/format.ts'
import { formatUuid, parseUuid, type UuidForm } from './uuid-parse.ts'

export type UuidVariant = 'ncs' | 'rfc9562' | 'microsoft' | 'future'

export interface UuidInspectInput {
  uuid: string
}

export interface UuidInspectResult {
  valid: boolean
  normalized: string
  input_format: UuidForm
  variant: UuidVariant
  version: number | null
  special: 'nil' | 'max' | null
  description: string
  timestamp?: string
  unix_ms?: number
  clock_sequence?: number
  node?: string
}

// RFC 9562 §4.2, Table 2; 0 and 9–15 are unused or reserved.
const VERSIONS: Record<number, string> = {
  1: 'time-based (Gregorian epoch)',
  2: 'DCE Security',
  3: 'name-based (MD5)',
  4: 'random',
  5: 'name-based (SHA-1)',
  6: 'reordered time-based (Gregorian epoch)',
  7: 'Unix Epoch time-based',
  8: 'custom',
}

// 100-ns intervals between 1582-10-15 (the Gregorian epoch of v1/v6) and 1970-01-01.
const GREGORIAN_OFFSET = 0x01b21dd213814000n

// RFC 9562 §4.1, Table 1: the variant is the leading bits of octet 8.
function variantOf(octet8: number): UuidVariant {
  if ((octet8 & 0x80) === 0) return 'ncs'
  if ((octet8 & 0xc0) === 0x80) return 'rfc9562'
  if ((octet8 & 0xe0) === 0xc0) return 'microsoft'
  return 'future'
}

function int(bytes: Uint8Array, from: number, to: number): bigint {
  return BigInt(`0x${Buffer.from(bytes.subarray(from, to)).toString('hex')}`)
}

function gregorianTime(bytes: Uint8Array, version: 1 | 6): bigint {
  const hi = int(bytes, 6, 8) & 0x0fffn
  const ticks =
    version === 1
      ? (hi << 48n) | (int(bytes, 4, 6) << 32n) | int(bytes, 0, 4)
      : (int(bytes, 0, 4) << 28n) | (int(bytes, 4, 6) << 12n) | hi
  return (ticks - GREGORIAN_OFFSET) * 100n
}

// Syntactically a UUID (any accepted spelling) → what its bits say. `valid` follows RFC 9562: the
// Nil and Max UUIDs, or the RFC variant with a defined version (1–8).
export function inspectUuid(input: UuidInspectInput): UuidInspectResult {
  const { bytes, form } = parseUuid(input.uuid)
  const normalized = formatUuid(bytes)
  const variant = variantOf(bytes[8]!)
  const special: UuidInspectResult['special'] = bytes.every((b) => b === 0)
    ? 'nil'
    : bytes.every((b) => b === 0xff)
      ? 'max'
      : null
  const base = { normalized, input_format: form, variant, special }
  if (special) {
    const description = special === 'nil' ? 'the Nil UUID (RFC 9562 §5.9)' : 'the Max UUID (RFC 9562 §5.10)'
    return { valid: true, ...base, version: null, description }
  }
  if (variant !== 'rfc9562') {
    return {
      valid: false,
      ...base,
      version: null,
      description: `not the RFC 9562 variant (${variant} variant)`,
    }
  }
  const version = bytes[6]! >> 4
  const name = VERSIONS[version]
  const result: UuidInspectResult = {
    valid: name !== undefined,
    ...base,
    version,
    description: name ? `version ${version}: ${name}` : `version ${version} is not defined by RFC 9562`,
  }
  if (version === 1 || version === 6) {
    result.timestamp = formatIsoUtc(gregorianTime(bytes, version))
    result.clock_sequence = ((bytes[8]! & 0x3f) << 8) | bytes[9]!
    result.node = Array.from(bytes.subarray(10), (b) => b.toString(16).padStart(2, '0')).join(':')
  } else if (version === 7) {
    const ms = int(bytes, 0, 6)
    result.timestamp = formatIsoUtc(ms * 1_000_000n)
    result.unix_ms = Number(ms)
  }
  return result
}
