import { AppError } from '../../errors.ts'
import { type ByteScanner, describeChar, invalidText, isAsciiSpace } from './shared.ts'

// Base58 in Bitcoin's alphabet (no 0 O I l): the bytes as one big-endian number in base 58, each leading
// zero byte written as a '1'. A base conversion costs more than linear time, so it runs on BigInt by divide
// and conquer (split at 58^(8·2^k), with V8's sub-quadratic multiplication and division: 16 KiB in ~50 ms
// where digit-by-digit limbs took 300 ms and the base-x package 2.5 s) and the input is capped
// (BASE58_MAX_BYTES; docs/decisions.md, "More encodings").

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const LETTERS = Buffer.from(ALPHABET, 'latin1')
const VALUES = new Int8Array(128).fill(-1)
for (let v = 0; v < 58; v++) VALUES[ALPHABET.charCodeAt(v)] = v
const ONE = 0x31

// digits per leaf of the conversion: 58^8 < 2^53, so a leaf is an exact Number
const LEAF = 8
const LEAF_BASE = 58n ** BigInt(LEAF)

// The largest byte string either way: 64 KiB (about 89,500 characters) take ~0.35 s to encode or decode;
// Bitcoin's own strings are under 100 bytes.
export const BASE58_MAX_BYTES = 64 * 1024
// base58 text or bytes past this many characters go to the pool (at 512, ~0.1 ms inline)
export const BASE58_INLINE_CHARS = 512
// the characters of BASE58_MAX_BYTES bytes: log(256)/log(58) characters a byte, rounded up
export const BASE58_MAX_CHARS = Math.ceil(BASE58_MAX_BYTES * 1.3658) + 1

// Its cost grows faster than the length: refused past the bound, as the text family refuses a punycode
// label or a run of combining marks (ERR_COMPUTE_LIMIT).
function tooLong(what: string, limit: number, unit: string): AppError {
  return new AppError(
    'ERR_COMPUTE_LIMIT',
    `Base58 ${what} may be at most ${limit} ${unit}: its conversion costs more than linear time.`,
    { reason: 'base58_length', limit, unit },
  )
}

// 58^(LEAF·2^k) for k = 0, 1, ... while its square may still be below n: the split points.
function powersFor(n: bigint): bigint[] {
  const powers = [LEAF_BASE]
  while (powers[powers.length - 1]! ** 2n <= n) powers.push(powers[powers.length - 1]! ** 2n)
  return powers
}

// The base-58 digits of n < powers[k]^2, most significant first, exactly LEAF·2^(k+1) of them.
function digitsOf(n: bigint, powers: readonly bigint[], k: number, out: number[]): void {
  if (k < 0) {
    let v = Number(n)
    const at = out.length
    for (let i = LEAF - 1; i >= 0; i--) {
      out[at + i] = v % 58
      v = Math.floor(v / 58)
    }
    return
  }
  digitsOf(n / powers[k]!, powers, k - 1, out)
  digitsOf(n % powers[k]!, powers, k - 1, out)
}

export function encodeBase58(bytes: Uint8Array): string {
  if (bytes.length > BASE58_MAX_BYTES) throw tooLong('input', BASE58_MAX_BYTES, 'bytes')
  let zeros = 0
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++
  const rest = bytes.subarray(zeros)
  const digits: number[] = []
  if (rest.length > 0) {
    const n = BigInt(`0x${Buffer.from(rest.buffer, rest.byteOffset, rest.byteLength).toString('hex')}`)
    const powers = powersFor(n)
    digitsOf(n, powers, powers.length - 1, digits)
  }
  let first = 0
  while (first < digits.length && digits[first] === 0) first++
  const out = Buffer.alloc(zeros + digits.length - first, ONE)
  for (let k = first; k < digits.length; k++) out[zeros + k - first] = LETTERS[digits[k]!]!
  return out.toString('latin1')
}

// The number the digits spell, most significant first: leaves of LEAF digits, joined pairwise.
function numberOf(digits: readonly number[]): bigint {
  const leaves = Math.max(1, Math.ceil(digits.length / LEAF))
  let width = 1
  while (width < leaves) width *= 2
  // left-padded with zero digits to width leaves
  const pad = width * LEAF - digits.length
  let level: bigint[] = []
  for (let leaf = 0; leaf < width; leaf++) {
    let v = 0
    for (let i = leaf * LEAF - pad; i < (leaf + 1) * LEAF - pad; i++) v = v * 58 + (i >= 0 ? digits[i]! : 0)
    level.push(BigInt(v))
  }
  let weight = LEAF_BASE
  while (level.length > 1) {
    const next: bigint[] = []
    for (let i = 0; i < level.length; i += 2) next.push(level[i]! * weight + level[i + 1]!)
    level = next
    weight *= weight
  }
  return level[0]!
}

function fail(position: number, message: string): never {
  throw invalidText('base58', position, message)
}

// Whitespace is skipped unless strict; every other character must be of the alphabet. The zero bytes of
// leading '1's are emitted at their positions, the number's bytes at the position of its first digit.
export function base58Scanner(strict: boolean): ByteScanner {
  return function scanBase58(input, emit) {
    const values: number[] = []
    const positions: number[] = []
    for (let i = 0; i < input.length; i++) {
      const c = input.charCodeAt(i)
      if (isAsciiSpace(c)) {
        if (strict) fail(i, `${describeChar(c)} is not allowed in strict mode`)
        continue
      }
      const v = c < 128 ? VALUES[c]! : -1
      if (v < 0) fail(i, `Invalid base58 character ${describeChar(c)}`)
      if (values.length === BASE58_MAX_CHARS) throw tooLong('text', BASE58_MAX_CHARS, 'characters')
      values.push(v)
      positions.push(i)
    }
    let zeros = 0
    while (zeros < values.length && values[zeros] === 0) emit(0, positions[zeros++]!)
    if (zeros === values.length) return
    const hex = numberOf(values.slice(zeros)).toString(16)
    const bytes = Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex')
    if (zeros + bytes.length > BASE58_MAX_BYTES) throw tooLong('output', BASE58_MAX_BYTES, 'bytes')
    const at = positions[zeros]!
    for (const byte of bytes) emit(byte, at)
  }
}
