import { randomFillSync } from 'node:crypto'
import { AppError } from '../../errors.ts'
import { encodeBase32 } from '../text/base32.ts'
import type { RandomBytes } from './nanoid.ts'
import { ULID_ALPHABET } from './types.ts'

// ULIDs (github.com/ulid/spec): a 48-bit Unix millisecond time then 80 random bits, in Crockford's Base32:
// 10 characters of time (the first at most 7), 16 of randomness. Monotonic, as the spec's monotonic
// factory: within one millisecond the randomness of the previous ULID plus one, so the ULIDs of a request
// are strictly increasing; plain, each ULID draws its own.

export interface UlidInput {
  count?: number
  monotonic?: boolean
}

export interface UlidResult {
  ulids: string[]
}

const RANDOM_BYTES = 10

// the time's 10 characters, most significant first
export function encodeUlidTime(ms: number): string {
  let text = ''
  for (let i = 0; i < 10; i++) {
    text = ULID_ALPHABET[ms % 32] + text
    ms = Math.floor(ms / 32)
  }
  return text
}

// The randomness plus one, in place; false when it was all ones (the spec: generation fails).
function increment(random: Uint8Array): boolean {
  for (let i = random.length - 1; i >= 0; i--) {
    if (random[i] !== 0xff) {
      random[i]!++
      return true
    }
    random[i] = 0
  }
  return false
}

function cryptoBytes(length: number): Uint8Array {
  return randomFillSync(new Uint8Array(length))
}

export function generateUlids(
  input: UlidInput,
  now: () => number = Date.now,
  random: RandomBytes = cryptoBytes,
): UlidResult {
  const count = input.count ?? 1
  const pool = random(count * RANDOM_BYTES)
  const ulids: string[] = []
  let lastTime = -1
  let last = new Uint8Array(RANDOM_BYTES)
  for (let i = 0; i < count; i++) {
    // a clock that steps back within the request keeps the last time, so the order holds
    const time = input.monotonic ? Math.max(now(), lastTime) : now()
    if (input.monotonic && time === lastTime) {
      if (!increment(last)) {
        // 80 bits used up within one millisecond: the spec fails the generation (an op's own budget, the
        // 2^80 ULIDs of a millisecond); a retry draws anew
        throw new AppError(
          'ERR_COMPUTE_LIMIT',
          'The 80 random bits of this millisecond are used up (the ULID spec fails the generation); retry.',
          { reason: 'ulid_random_overflow', limit: 80 },
        )
      }
    } else last = pool.slice(i * RANDOM_BYTES, (i + 1) * RANDOM_BYTES)
    lastTime = time
    ulids.push(encodeUlidTime(time) + encodeBase32(last, 'base32_crockford'))
  }
  return { ulids }
}
