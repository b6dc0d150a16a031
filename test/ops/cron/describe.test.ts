import { describe, expect, it } from 'vitest'
import { cronParse } from '../../../src/ops/cron/op.ts'

function described(expression: string): string {
  return cronParse({ expression, from: '2024-01-01T00:00:00Z', count: 1 }).description
}

describe('cron descriptions', () => {
  it.each([
    ['30 2 * * *', 'At 02:30 AM'],
    ['*/15 * * * *', 'Every 15 minutes'],
    ['*/10 * * * * *', 'Every 10 seconds'],
    ['@hourly', 'Every hour'],
    ['@weekly', 'At 12:00 AM, only on Sunday'],
    ['0 0 * * 7', 'At 12:00 AM, only on Sunday'],
    ['0 0 L * *', 'At 12:00 AM, on the last day of the month'],
    ['0 0 LW * *', 'At 12:00 AM, on the last weekday of the month'],
    ['0 0 15W * *', 'At 12:00 AM, on the weekday nearest day 15 of the month'],
    ['0 0 * * 5L', 'At 12:00 AM, on the last Friday of the month'],
    ['0 0 * * MON#2', 'At 12:00 AM, on the second Monday of the month'],
    ['0 0 13 * FRI', 'At 12:00 AM, on day 13 of the month, and on Friday'],
  ])('%s → %s', (expression, text) => {
    expect(described(expression)).toBe(text)
  })

  it('words L, W and # itself when cronstrue would garble the list or drop the "or"', () => {
    expect(described('0 0 L-3,1-5 * *')).toBe(
      'At 12:00 AM, on days 1 through 5 of the month or 3 days before the last day of the month',
    )
    expect(described('0 0 * * 1#2,3')).toBe('At 12:00 AM, on Wednesday or the second Monday of the month')
    expect(described('0 0 1,15W * 1-5')).toBe(
      'At 12:00 AM, on day 1 of the month or the weekday nearest day 15 of the month, or on Monday through Friday',
    )
    expect(described('0 0 */10,L * *')).toBe(
      'At 12:00 AM, on every 10th day of the month from day 1 through day 31 or the last day of the month',
    )
    expect(described('0 9 L * 5L')).toBe(
      'At 09:00 AM, on the last day of the month, or on the last Friday of the month',
    )
    expect(described('0 0 15W * MON')).toBe(
      'At 12:00 AM, on the weekday nearest day 15 of the month, or on Monday',
    )
    expect(described('30 8 1,L 1 *')).toBe(
      'At 08:30 AM, only in January, on day 1 of the month or the last day of the month',
    )
  })

  it('describes every valid expression without throwing', () => {
    for (const e of [
      '0 0 * * 0-7',
      '0 0 ? * ?',
      '1-59/58 0/23 1/31 1/12 0/7',
      '0 0 L-30 * 0#5,6L',
      '59 23 31 12 *',
    ]) {
      expect(described(e).length).toBeGreaterThan(0)
    }
  })
})
