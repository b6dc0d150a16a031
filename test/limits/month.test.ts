import { describe, expect, it } from 'vitest'
import { dayOf, monthOf, secondsToMonthEnd } from '../../src/limits/month.ts'

// The usage calendar is cached per month and per day: the cache must roll over exactly at UTC midnight.
describe('UTC calendar for usage and quotas', () => {
  it('names days and months across day, month and year boundaries, in any order of calls', () => {
    const lastMs = Date.UTC(2026, 11, 31, 23, 59, 59, 999)
    expect(dayOf(lastMs)).toBe('2026-12-31')
    expect(dayOf(lastMs + 1)).toBe('2027-01-01')
    expect(monthOf(lastMs + 1)).toBe('2027-01')
    expect(dayOf(Date.UTC(2024, 1, 29, 12))).toBe('2024-02-29')
    expect(dayOf(lastMs)).toBe('2026-12-31')
    expect(dayOf(Date.UTC(2026, 10, 22))).toBe('2026-11-22')
    expect(dayOf(Date.UTC(2026, 10, 22) - 1)).toBe('2026-11-21')
    expect(dayOf(0)).toBe('1970-01-01')
  })

  it('counts the seconds left in the month, at least one', () => {
    expect(secondsToMonthEnd(Date.UTC(2026, 10, 30, 23, 59, 0))).toBe(60)
    expect(secondsToMonthEnd(Date.UTC(2026, 11, 1) - 1)).toBe(1)
  })
})
