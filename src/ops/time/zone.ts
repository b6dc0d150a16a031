import { AppError } from '../../errors.ts'
import { floorDiv, NS_PER_SECOND } from './civil.ts'

// Every zone lookup goes through Intl with an explicit timeZone: the host's TZ is never consulted.
// Intl accepts IANA names (case-insensitive, links such as US/Eastern) and fixed offsets (±hh, ±hhmm, ±hh:mm).

const MAX_NAME = 64
const CACHE_LIMIT = 512
const MAX_MS = 8.64e15
const DAY_MS = 86_400_000
const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(name: string): Intl.DateTimeFormat {
  const cached = formatters.get(name)
  if (cached) return cached
  let created: Intl.DateTimeFormat
  try {
    if (name.length > MAX_NAME) throw new RangeError('too long')
    created = new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset' })
  } catch {
    throw new AppError(
      'ERR_INVALID_TIMEZONE',
      `Unknown time zone "${name.slice(0, MAX_NAME)}": use an IANA name such as "America/New_York" or a fixed offset such as "+05:30"`,
      { timezone: name.slice(0, MAX_NAME) },
    )
  }
  // Bounded: the names come from clients.
  if (formatters.size >= CACHE_LIMIT) formatters.clear()
  formatters.set(name, created)
  return created
}

// Intl (ICU) canonicalises every link to CLDR's canonical ID, which is the IANA primary name except for
// the zones IANA renamed since CLDR froze its IDs: those are mapped to IANA's names here. (Zones that IANA
// merged into another country's, such as Europe/Bratislava, keep their own names, as zone.tab and ECMA-402
// have them.) test/ops/time/zone-names.test.ts checks this table against the tz database.
const RENAMED = new Map<string, string>([
  ['Africa/Asmera', 'Africa/Asmara'],
  ['America/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
  ['America/Catamarca', 'America/Argentina/Catamarca'],
  ['America/Coral_Harbour', 'America/Atikokan'],
  ['America/Cordoba', 'America/Argentina/Cordoba'],
  ['America/Godthab', 'America/Nuuk'],
  ['America/Indianapolis', 'America/Indiana/Indianapolis'],
  ['America/Jujuy', 'America/Argentina/Jujuy'],
  ['America/Louisville', 'America/Kentucky/Louisville'],
  ['America/Mendoza', 'America/Argentina/Mendoza'],
  ['Asia/Calcutta', 'Asia/Kolkata'],
  ['Asia/Katmandu', 'Asia/Kathmandu'],
  ['Asia/Rangoon', 'Asia/Yangon'],
  ['Asia/Saigon', 'Asia/Ho_Chi_Minh'],
  ['Atlantic/Faeroe', 'Atlantic/Faroe'],
  ['Europe/Kiev', 'Europe/Kyiv'],
  ['Pacific/Enderbury', 'Pacific/Kanton'],
  ['Pacific/Ponape', 'Pacific/Pohnpei'],
  ['Pacific/Truk', 'Pacific/Chuuk'],
])

// The IANA primary name of a zone Intl has resolved ("Asia/Calcutta" → "Asia/Kolkata"); "UTC" stays
// "UTC" (ECMA-402 names Etc/UTC, Etc/GMT and GMT so), offsets and Etc/GMT±n stay as they are.
export function primaryZoneName(resolved: string): string {
  return RENAMED.get(resolved) ?? resolved
}

// The zone's identifier, the same in every family (time, cron): its IANA primary name, never a backward
// link ("US/Eastern" → "America/New_York", "Asia/Calcutta" and "asia/kolkata" → "Asia/Kolkata",
// "Europe/Kiev" → "Europe/Kyiv"); offsets normalised ("-0800" → "-08:00").
export function resolveTimeZone(name: string): string {
  return primaryZoneName(formatter(name).resolvedOptions().timeZone)
}

const OFFSET = /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/

// UTC offset in seconds at an instant; local mean time offsets before standard time have seconds.
export function offsetSecondsAt(name: string, epochMs: number): number {
  const clamped = Math.min(MAX_MS, Math.max(-MAX_MS, epochMs))
  const part = formatter(name)
    .formatToParts(clamped)
    .find((p) => p.type === 'timeZoneName')
  const m = OFFSET.exec(part?.value ?? '')
  if (!m) throw new Error(`Unexpected offset format from Intl: ${part?.value}`)
  if (m[1] === undefined) return 0
  const seconds = Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? 0)
  return m[1] === '-' ? -seconds : seconds
}

export function offsetSecondsAtNs(name: string, ns: bigint): number {
  return offsetSecondsAt(name, Number(floorDiv(ns, 1_000_000n)))
}

// A wall-clock time in a zone → the instant. Like Temporal's "compatible" disambiguation: a time
// repeated by a backward transition is its earlier occurrence; a time skipped by a forward transition
// is read with the offset in force before it, which lands after the gap (02:30 → 03:30 on a
// spring-forward night in New York).
export function instantFromWall(name: string, wall: bigint): bigint {
  const wallMs = Number(floorDiv(wall, 1_000_000n))
  const before = offsetSecondsAt(name, wallMs - DAY_MS)
  const after = offsetSecondsAt(name, wallMs + DAY_MS)
  const valid = [before, after].filter((o) => offsetSecondsAt(name, wallMs - o * 1000) === o)
  // the larger offset gives the earlier instant
  const chosen = valid.length > 0 ? Math.max(...valid) : before
  return wall - BigInt(chosen) * NS_PER_SECOND
}

export function formatOffset(seconds: number, colon = true): string {
  const sign = seconds < 0 ? '-' : '+'
  const abs = Math.abs(seconds)
  const hh = String(Math.floor(abs / 3600)).padStart(2, '0')
  const mm = String(Math.floor((abs % 3600) / 60)).padStart(2, '0')
  const ss = abs % 60
  const sep = colon ? ':' : ''
  return `${sign}${hh}${sep}${mm}${ss === 0 ? '' : `${sep}${String(ss).padStart(2, '0')}`}`
}
