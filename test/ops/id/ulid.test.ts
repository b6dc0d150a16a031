import fc from 'fast-check'
import { decodeTime, ulid as referenceUlid, ulidToUUID } from 'ulid'
import { describe, expect, it } from 'vitest'
import { MAX_UUID_COUNT } from '../../../src/ops/id/types.ts'
import { generateUlids } from '../../../src/ops/id/ulid.ts'
import { inspectUlid } from '../../../src/ops/id/ulid-inspect.ts'

// ULIDs (github.com/ulid/spec), checked against the spec's reference implementation (the `ulid` package:
// decodeTime, ulidToUUID) as the independent implementation.
const CANONICAL = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/

function refused(text: string, position: number, reason: RegExp): void {
  let caught: unknown
  try {
    inspectUlid({ ulid: text })
  } catch (err) {
    caught = err
  }
  expect(caught).toMatchObject({ code: 'ERR_INVALID_ULID', details: { field: 'ulid', position } })
  expect((caught as { details: { reason: string } }).details.reason).toMatch(reason)
}

describe('ULID generation', () => {
  it('26 canonical characters: the time now, then 80 random bits', () => {
    const before = Date.now()
    const { ulids } = generateUlids({ count: 100 })
    const after = Date.now()
    expect(ulids).toHaveLength(100)
    for (const u of ulids) {
      expect(u).toMatch(CANONICAL)
      const ms = decodeTime(u)
      expect(ms).toBeGreaterThanOrEqual(before)
      expect(ms).toBeLessThanOrEqual(after)
    }
    expect(new Set(ulids.map((u) => u.slice(10))).size).toBe(100)
  })

  it(`monotonic: ${MAX_UUID_COUNT} ULIDs in one millisecond are strictly increasing, each the last plus one`, () => {
    const { ulids } = generateUlids({ count: MAX_UUID_COUNT, monotonic: true }, () => 1469922850259)
    for (let i = 1; i < ulids.length; i++) {
      expect(ulids[i]! > ulids[i - 1]!).toBe(true)
      const step = BigInt(`0x${inspectUlid({ ulid: ulids[i]! }).randomness_hex}`)
      const prev = BigInt(`0x${inspectUlid({ ulid: ulids[i - 1]! }).randomness_hex}`)
      expect(step - prev).toBe(1n)
    }
    expect(ulids[0]!.slice(0, 10)).toBe('01ARZ3NDEK')
  })

  it('monotonic: a clock that steps back keeps the last time, so the order holds; a new millisecond draws anew', () => {
    const times = [1000, 1000, 999, 1001]
    const { ulids } = generateUlids({ count: 4, monotonic: true }, () => times.shift()!)
    expect([...ulids].sort()).toEqual(ulids)
    expect(ulids.map((u) => decodeTime(u))).toEqual([1000, 1000, 1000, 1001])
  })

  it('plain: each ULID draws its own randomness, even within one millisecond', () => {
    const { ulids } = generateUlids(
      { count: 3 },
      () => 5,
      (n) => Uint8Array.from({ length: n }, (_, i) => i),
    )
    // bytes 0–9, 10–19, 20–29 of the random source, in Crockford's Base32
    expect(ulids).toEqual([
      '0000000005000G40R40M30E209',
      '0000000005185GR38E1W8124GK',
      '00000000052GAHC5RR34D1P70X',
    ])
  })

  it('monotonic: 80 bits used up within one millisecond fail the request (retry), as the spec says', () => {
    const allOnes = (n: number) => new Uint8Array(n).fill(0xff)
    expect(generateUlids({ count: 1, monotonic: true }, () => 5, allOnes).ulids).toEqual([
      '0000000005ZZZZZZZZZZZZZZZZ',
    ])
    expect(() => generateUlids({ count: 2, monotonic: true }, () => 5, allOnes)).toThrowError(
      expect.objectContaining({
        code: 'ERR_COMPUTE_LIMIT',
        details: { reason: 'ulid_random_overflow', limit: 80 },
      }),
    )
  })
})

describe('ULID inspection', () => {
  it("decodes the spec's example", () => {
    expect(inspectUlid({ ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAV' })).toEqual({
      ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      canonical: true,
      unix_ms: 1469922850259,
      timestamp: '2016-07-30T23:54:10.259Z',
      randomness: 'TSV4RRFFQ69G5FAV',
      randomness_hex: 'd6764c61efb99302bd5b',
      uuid: '01563e3a-b5d3-d676-4c61-efb99302bd5b',
    })
  })

  it('agrees with the reference implementation on time and bits, for any ULID it makes', () => {
    fc.assert(
      // (the reference reads a time of 0 as "now")
      fc.property(fc.integer({ min: 1, max: 2 ** 48 - 1 }), (ms) => {
        const u = referenceUlid(ms)
        const seen = inspectUlid({ ulid: u })
        expect(seen.unix_ms).toBe(ms)
        expect(seen.unix_ms).toBe(decodeTime(u))
        expect(seen.uuid).toBe(ulidToUUID(u).toLowerCase())
        expect(seen.canonical).toBe(true)
      }),
      { numRuns: 500 },
    )
  })

  it('the largest and smallest ULIDs', () => {
    expect(inspectUlid({ ulid: '7ZZZZZZZZZZZZZZZZZZZZZZZZZ' })).toMatchObject({
      unix_ms: 2 ** 48 - 1,
      uuid: 'ffffffff-ffff-ffff-ffff-ffffffffffff',
    })
    expect(inspectUlid({ ulid: '00000000000000000000000000' })).toMatchObject({
      unix_ms: 0,
      timestamp: '1970-01-01T00:00:00.000Z',
    })
  })

  it('reads any case and Crockford’s I, L, O; says the input was not canonical', () => {
    const seen = inspectUlid({ ulid: 'oiarz3ndektsv4rrffq69g5fav' })
    expect(seen.ulid).toBe('01ARZ3NDEKTSV4RRFFQ69G5FAV')
    expect(seen.canonical).toBe(false)
    expect(inspectUlid({ ulid: '0LARZ3NDEKTSV4RRFFQ69G5FAV' }).ulid).toBe('01ARZ3NDEKTSV4RRFFQ69G5FAV')
  })

  it('refuses a first character above 7, U and other characters, and a wrong length, where they are', () => {
    refused('81ARZ3NDEKTSV4RRFFQ69G5FAV', 0, /at most 7/)
    refused('ZZZZZZZZZZZZZZZZZZZZZZZZZZ', 0, /at most 7/)
    refused('01ARZ3NDEKTSV4RRFFQ69G5FAU', 25, /'U'/)
    refused('01ARZ3NDEK-SV4RRFFQ69G5FAV', 10, /'-'/)
    refused('01ARZ3NDEKTSV4RRFFQ69G5FA', 25, /expected 26 characters, got 25/)
    refused('01ARZ3NDEKTSV4RRFFQ69G5FAVX', 26, /got 27/)
    refused('', 0, /got 0/)
  })
})
