import { civilFromDays, daysFromCivil, floorDiv, NS_PER_SECOND } from './civil.ts'

const NS_PER_DAY = 86_400n * NS_PER_SECOND

// Under a month, fixed unit lengths; the count is truncated (47 hours is "1 day ago").
const SHORT_UNITS: readonly [Intl.RelativeTimeFormatUnit, bigint][] = [
  ['week', 604_800n],
  ['day', 86_400n],
  ['hour', 3_600n],
  ['minute', 60n],
  ['second', 1n],
]

// numeric: 'always' gives "in 1 year" / "1 day ago" rather than "next year" / "yesterday".
// Made on first use: ICU's relative-time data is ~8 MiB of RSS a process pays only once it formats one.
let englishFormat: Intl.RelativeTimeFormat | undefined
const english = () => (englishFormat ??= new Intl.RelativeTimeFormat('en', { numeric: 'always' }))

// Whole calendar months from `early` to `late` (UTC calendar): 2024-03-10 → 2025-03-10 is 12 even
// though that year has 365 days, and 01-31 → 02-29 is 0 because the 31st has not come round again.
function wholeMonths(early: bigint, late: bigint): number {
  const a = civilFromDays(Number(floorDiv(early, NS_PER_DAY)))
  const b = civilFromDays(Number(floorDiv(late, NS_PER_DAY)))
  const intoMonth = (ns: bigint, d: { year: number; month: number }) =>
    ns - BigInt(daysFromCivil(d.year, d.month, 1)) * NS_PER_DAY
  const months = (b.year - a.year) * 12 + (b.month - a.month)
  return intoMonth(late, b) < intoMonth(early, a) ? months - 1 : months
}

// English for `target` relative to `reference`: "in 5 minutes", "3 hours ago", "in 1 year", and
// "just now" under one second either way.
export function relativeText(target: bigint, reference: bigint): string {
  const future = target >= reference
  const sign = future ? 1 : -1
  const months = future ? wholeMonths(reference, target) : wholeMonths(target, reference)
  if (months >= 12) return english().format(sign * Math.floor(months / 12), 'year')
  if (months >= 1) return english().format(sign * months, 'month')
  const seconds = (future ? target - reference : reference - target) / NS_PER_SECOND
  for (const [unit, size] of SHORT_UNITS) {
    if (seconds >= size) return english().format(sign * Number(seconds / size), unit)
  }
  return 'just now'
}
