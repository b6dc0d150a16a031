import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { timestamp } from '../../../src/ops/time/timestamp.ts'

const ts = (value: string) => timestamp({ value })

// Issue 15, item 5: RFC 5322 dates with comments (CFWS) and obsolete zones, as mail and HTTP logs have them.
describe('time: RFC 5322 comments and obsolete zones', () => {
  it.each([
    ['Tue, 14 Nov 2023 22:13:20 +0000 (UTC)', '2023-11-14T22:13:20.000Z'],
    ['Tue, 14 Nov 2023 22:13:20 GMT (Greenwich Mean Time)', '2023-11-14T22:13:20.000Z'],
    ['Tue, 14 Nov 2023 17:13:20 -0500 (EST)', '2023-11-14T22:13:20.000Z'],
    ['Tue, 14 Nov 2023 17:13:20 EST', '2023-11-14T22:13:20.000Z'],
    ['Tue, 14 Nov 2023 15:13:20 PDT', '2023-11-14T22:13:20.000Z'],
    ['Tue, 14 Nov 2023 22:13:20 UT', '2023-11-14T22:13:20.000Z'],
    [
      '(received) Tue (day) , (x) 14 (d) Nov (m) 2023 (y) 22 : 13 : 20 (t) +0000 (a) (b)',
      '2023-11-14T22:13:20.000Z',
    ],
    ['Tue, 14 Nov 2023 22:13:20(no space)+0100(CET)', '2023-11-14T21:13:20.000Z'],
    ['Tue, 14 Nov 2023 22:13:20 +0000 (nested (comment) with \\) escaped paren)', '2023-11-14T22:13:20.000Z'],
    ['14 Nov 2023 22:13 +0000 (Coordinated\r\n Universal Time)', '2023-11-14T22:13:00.000Z'],
  ])('%j', (value, iso) => {
    const r = ts(value)
    expect(r.iso8601).toBe(iso)
    expect(r.input_format).toBe('rfc2822')
  })

  it.each([
    ['Tue, 14 Nov 2023 22:13:20 +0000 (UTC', 32, 'not closed'],
    ['Tue, 14 Nov 2023 22:13:20 +0000 (a (b)', 32, 'not closed'],
    ['Tue, 14 Nov 2023 22:13:20 +0000 (a\\)', 32, 'not closed'],
    ['Tue, 14 Nov 2023 22:13:20 +0000 ) ', 32, 'after the zone'],
    ['Tue, 14 Nov 2023 22:13:20 +0000 (UTC) x', 38, 'after the zone'],
  ])('refuses %j at %i', (value, position, reason) => {
    expect(() => ts(value)).toThrowError(
      expect.objectContaining({
        code: 'ERR_INVALID_TIMESTAMP',
        details: expect.objectContaining({ position, reason: expect.stringContaining(reason) }),
      }),
    )
  })

  it('comments anywhere between tokens never change the instant', () => {
    const comment = fc
      .array(fc.constantFrom('a', ' ', '\\(', '\\)', '(x)', '((y))', 'é', ':', ','), { maxLength: 5 })
      .map((parts) => `(${parts.join('')})`)
    const gap = fc.array(fc.oneof(fc.constant(' '), comment), { maxLength: 3 }).map((g) => g.join(''))
    const tokens = ['Tue', ',', '14', 'Nov', '2023', '22', ':', '13', ':', '20', '+0000']
    // where a separator is required, at least one space or comment stands there
    const required = new Set([2, 3, 4, 5, 10])
    fc.assert(
      fc.property(fc.array(gap, { minLength: 12, maxLength: 12 }), (gaps) => {
        const text = tokens
          .map((token, i) => `${required.has(i) && gaps[i] === '' ? ' ' : gaps[i]}${token}`)
          .join('')
          .concat(gaps[11]!)
        expect(ts(text).iso8601).toBe('2023-11-14T22:13:20.000Z')
      }),
      { seed: 15_2026, numRuns: 300 },
    )
  })
})
