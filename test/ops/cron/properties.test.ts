import { CronExpressionParser } from 'cron-parser'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cronParse } from '../../../src/ops/cron/op.ts'

// ---- an independent oracle: step through every minute of a window and apply the DST policy directly ----

interface Wall {
  key: string
  minute: number
  hour: number
  day: number
  month: number
  weekday: number
}

const walls = new Map<string, Intl.DateTimeFormat>()
function wallOf(zone: string, ms: number): Wall {
  let f = walls.get(zone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      weekday: 'short',
    })
    walls.set(zone, f)
  }
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, x.value]))
  return {
    key: `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`,
    minute: Number(p.minute),
    hour: Number(p.hour),
    day: Number(p.day),
    month: Number(p.month),
    weekday: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(p.weekday!),
  }
}

interface Sets {
  minute: number[]
  hour: number[] | null // null: "*"
  hourStep: number // >1: "*/n"
  dom: number[] | null
  dow: number[] | null
}

function expressionOf(s: Sets): string {
  const hour = s.hour ? s.hour.join(',') : s.hourStep > 1 ? `*/${s.hourStep}` : '*'
  return `${s.minute.join(',')} ${hour} ${s.dom ? s.dom.join(',') : '*'} * ${s.dow ? s.dow.join(',') : '*'}`
}

function matches(s: Sets, w: Wall): boolean {
  if (!s.minute.includes(w.minute)) return false
  if (s.hour ? !s.hour.includes(w.hour) : w.hour % s.hourStep !== 0) return false
  const dom = s.dom?.includes(w.day) ?? true
  const dow = s.dow?.includes(w.weekday) ?? true
  return s.dom && s.dow ? dom || dow : dom && dow
}

// Runs in (start, end], minute by minute: wildcard-hour jobs at every matching instant; fixed jobs at the
// first instant showing a matching wall time, plus once at the end of a gap that swallowed one.
function oracle(s: Sets, zone: string, start: number, end: number): number[] {
  const out: number[] = []
  const seen = new Set<string>()
  const fixed = s.hour !== null
  let prev = wallOf(zone, start)
  for (let t = start + 60_000; t <= end; t += 60_000) {
    const w = wallOf(zone, t)
    let run = matches(s, w) && (!fixed || !seen.has(w.key))
    if (fixed && !run) {
      // the wall times skipped between the previous minute and this one (a gap)
      const skippedFrom = Date.parse(`${prev.key.replace(' ', 'T')}:00Z`) + 60_000
      const skippedTo = Date.parse(`${w.key.replace(' ', 'T')}:00Z`)
      for (let g = skippedFrom; g < skippedTo && !run; g += 60_000) {
        const d = new Date(g)
        run = matches(s, {
          key: '',
          minute: d.getUTCMinutes(),
          hour: d.getUTCHours(),
          day: d.getUTCDate(),
          month: d.getUTCMonth() + 1,
          weekday: d.getUTCDay(),
        })
      }
    }
    if (run) out.push(t / 1000)
    seen.add(w.key)
    prev = w
  }
  return out
}

const subset = (max: number, min = 0) =>
  fc.uniqueArray(fc.integer({ min, max }), { minLength: 1, maxLength: 4 }).map((a) => a.sort((x, y) => x - y))
const sets: fc.Arbitrary<Sets> = fc.record({
  minute: fc.oneof(subset(59), fc.constant<number[]>([0, 15, 30, 45])),
  hour: fc.oneof(fc.constant(null), subset(23), fc.constantFrom<number[]>([1], [2], [3], [0, 1, 2, 3, 4])),
  hourStep: fc.constantFrom(1, 2, 3),
  dom: fc.oneof(fc.constant(null), subset(31, 1)),
  dow: fc.oneof(fc.constant(null), subset(6)),
})

const TRANSITIONS: [string, string][] = [
  ['America/New_York', '2024-03-10T07:00:00Z'],
  ['America/New_York', '2024-11-03T06:00:00Z'],
  ['Europe/Athens', '2024-03-31T01:00:00Z'],
  ['Europe/Athens', '2024-10-27T01:00:00Z'],
  ['Australia/Lord_Howe', '2024-10-05T15:30:00Z'],
  ['Australia/Lord_Howe', '2024-04-06T15:00:00Z'],
]

function toSeconds(iso: string): number {
  return Date.parse(iso) / 1000
}

describe('cron runs against a minute-by-minute oracle around DST transitions', () => {
  it('agree in both directions', () => {
    fc.assert(
      fc.property(sets, fc.constantFrom(...TRANSITIONS), (s, [zone, at]) => {
        const start = Date.parse(at) - 26 * 3_600_000
        const end = Date.parse(at) + 26 * 3_600_000
        const expected = oracle(s, zone, start, end)
        const expression = expressionOf(s)
        let next: number[]
        try {
          next = cronParse({
            expression,
            timezone: zone,
            from: new Date(start).toISOString(),
            count: 100,
          }).runs.map(toSeconds)
        } catch {
          return // "never matches" (e.g. day 31 with no day of week): nothing to compare in this window
        }
        const within = next.filter((t) => t * 1000 <= end)
        expect(within, expression).toEqual(expected.slice(0, within.length))
        if (within.length < next.length) expect(within.length).toBe(expected.length)
        const prev = cronParse({
          expression,
          timezone: zone,
          from: new Date(end + 1000).toISOString(),
          count: 100,
          direction: 'previous',
        }).runs.map(toSeconds)
        const prevWithin = prev.filter((t) => t * 1000 > start)
        expect(prevWithin, expression).toEqual(expected.toReversed().slice(0, prevWithin.length))
      }),
      { numRuns: 30 },
    )
  })
})

// ---- random expressions with every feature: previous undoes next, and every run is well-formed ----

const item = (field: 'min' | 'hour' | 'dom' | 'month' | 'dow') => {
  const max = { min: 59, hour: 23, dom: 31, month: 12, dow: 7 }[field]
  const lo = field === 'dom' || field === 'month' ? 1 : 0
  const n = fc.integer({ min: lo, max })
  const plain = fc.oneof(
    n.map(String),
    fc.tuple(n, n).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
    fc.integer({ min: 1, max: 7 }).map((k) => `*/${k}`),
    fc.tuple(n, fc.integer({ min: 1, max: 5 })).map(([a, k]) => `${a}/${k}`),
  )
  if (field === 'dom') {
    return fc.oneof(plain, fc.constantFrom('L', 'LW', 'L-2', '15W', '1W', '31W', '30'))
  }
  if (field === 'dow') {
    return fc.oneof(plain, fc.constantFrom('5L', 'MON#2', '0#5', 'SUN', 'FRI-SAT', '1#1'))
  }
  return plain
}
const field = (f: Parameters<typeof item>[0]) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant('*') },
    { weight: 3, arbitrary: fc.array(item(f), { minLength: 1, maxLength: 3 }).map((a) => a.join(',')) },
  )
const anyExpression = fc
  .tuple(field('min'), field('hour'), field('dom'), field('month'), field('dow'))
  .map((parts) => parts.join(' '))
const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/Athens',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Pacific/Apia',
]
const instant = fc
  .integer({ min: Date.parse('1990-01-01T00:00:00Z'), max: Date.parse('2060-01-01T00:00:00Z') })
  .map((ms) => new Date(ms).toISOString())

describe('cron run properties', () => {
  it('previous from the last of n next runs gives the others back, reversed', () => {
    fc.assert(
      fc.property(anyExpression, fc.constantFrom(...ZONES), instant, (expression, timezone, from) => {
        let next: string[]
        try {
          next = cronParse({ expression, timezone, from, count: 6 }).runs
        } catch (err) {
          expect(err).toMatchObject({ code: 'ERR_INVALID_CRON' })
          return
        }
        expect(next).toHaveLength(6)
        const seconds = next.map(toSeconds)
        for (let i = 1; i < seconds.length; i++) expect(seconds[i]).toBeGreaterThan(seconds[i - 1]!)
        expect(seconds[0]! * 1000).toBeGreaterThan(Date.parse(from))
        const back = cronParse({
          expression,
          timezone,
          from: next.at(-1)!,
          count: 5,
          direction: 'previous',
        }).runs
        expect(back.map(toSeconds)).toEqual(seconds.slice(0, 5).toReversed())
      }),
      { numRuns: 200 },
    )
  })
})

describe('normalized form', () => {
  it('is idempotent and means the same schedule', () => {
    fc.assert(
      fc.property(anyExpression, fc.constantFrom(...ZONES), instant, (expression, timezone, from) => {
        let first: ReturnType<typeof cronParse>
        try {
          first = cronParse({ expression, timezone, from, count: 4 })
        } catch {
          return
        }
        const again = cronParse({ expression: first.normalized, timezone, from, count: 4 })
        expect(again.normalized).toBe(first.normalized)
        expect(again.fields).toEqual(first.fields)
        expect(again.special).toEqual(first.special)
        expect(again.day_matching).toBe(first.day_matching)
        expect(again.runs).toEqual(first.runs)
      }),
      { numRuns: 200 },
    )
  })
})

// ---- cron-parser 5 as a cross-check where it is right: plain fields in zones without DST ----

describe('cron runs agree with cron-parser on plain expressions', () => {
  it('next and previous, in UTC and Asia/Tokyo', () => {
    const plainField = (f: Parameters<typeof item>[0]) =>
      fc.oneof(
        fc.constant('*'),
        fc
          .array(
            // a/k in day_of_week: cron-parser runs to 7 (Sunday again), Anvil stops at 6 like * does
            item(f).filter((t) => !/[LW#]|[A-Z]/.test(t) && !(f === 'dow' && /^\d+\//.test(t))),
            { minLength: 1, maxLength: 3 },
          )
          .map((a) => a.join(',')),
      )
    const plain = fc
      .tuple(plainField('min'), plainField('hour'), plainField('dom'), plainField('month'), plainField('dow'))
      .map((p) => p.join(' '))
    fc.assert(
      fc.property(plain, fc.constantFrom('UTC', 'Asia/Tokyo'), instant, (expression, tz, from) => {
        let mine: string[]
        try {
          mine = cronParse({ expression, timezone: tz, from, count: 5 }).runs.map((r) =>
            new Date(r).toISOString(),
          )
        } catch {
          return
        }
        // cron-parser ORs the day fields even when one starts with * (Vixie ANDs them: test/ops/cron/vixie.test.ts)
        if (cronParse({ expression, count: 1 }).day_matching === 'both') return
        let theirs: ReturnType<typeof CronExpressionParser.parse>
        try {
          theirs = CronExpressionParser.parse(expression, { currentDate: from, tz })
        } catch {
          return // cron-parser refuses some valid lists (duplicate values)
        }
        expect(mine, expression).toEqual(Array.from({ length: 5 }, () => theirs.next().toISOString()))
        const minePrev = cronParse({ expression, timezone: tz, from, count: 5, direction: 'previous' }).runs
        const theirsPrev = CronExpressionParser.parse(expression, { currentDate: from, tz })
        expect(
          minePrev.map((r) => new Date(r).toISOString()),
          expression,
        ).toEqual(Array.from({ length: 5 }, () => theirsPrev.prev().toISOString()))
      }),
      { numRuns: 200 },
    )
  })
})
