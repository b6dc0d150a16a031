import { formatOffset, formatWall } from './calendar.ts'
import { assertSatisfiable, type DayMatching, dayMatching } from './days.ts'
import { describeCron, describeSpecial } from './describe.ts'
import { type FieldName, specialToken } from './fields.ts'
import { parseInstant } from './instant.ts'
import { parseCron } from './parse.ts'
import { type Direction, scheduleRuns } from './schedule.ts'
import { formatInstant, offsetAt, resolveZone } from './zone.ts'

export interface CronParseInput {
  expression: string
  timezone?: string
  count?: number
  from?: string
  direction?: Direction
}

export interface CronSpecialOut {
  field: 'day_of_month' | 'day_of_week'
  token: string
  description: string
}

export interface CronFieldsOut {
  second?: number[]
  minute: number[]
  hour: number[]
  day_of_month: number[]
  month: number[]
  day_of_week: number[]
}

export interface CronParseResult {
  expression: string
  normalized: string
  has_seconds: boolean
  fields: CronFieldsOut
  special: CronSpecialOut[]
  day_matching: DayMatching
  description: string
  timezone: string
  direction: Direction
  from: string
  runs: string[]
}

// The reference instant in the zone, with milliseconds only when it has them.
function formatFrom(zone: string, ms: number): string {
  const seconds = Math.floor(ms / 1000)
  const millis = ms - seconds * 1000
  if (millis === 0) return formatInstant(zone, seconds)
  const offset = offsetAt(zone, seconds)
  return `${formatWall(seconds + offset)}.${String(millis).padStart(3, '0')}${formatOffset(offset)}`
}

export function cronParse(input: CronParseInput): CronParseResult {
  const spec = parseCron(input.expression)
  const timezone = resolveZone(input.timezone ?? 'UTC')
  const fromMs = input.from === undefined ? Date.now() : parseInstant(input.from, 'from')
  assertSatisfiable(spec)
  const direction = input.direction ?? 'next'
  const values = (name: FieldName) => spec.fields[name].values
  const fields: CronFieldsOut = {
    ...(spec.has_seconds ? { second: values('second') } : {}),
    minute: values('minute'),
    hour: values('hour'),
    day_of_month: values('day_of_month'),
    month: values('month'),
    day_of_week: values('day_of_week'),
  }
  const special = (['day_of_month', 'day_of_week'] as const).flatMap((field) =>
    spec.fields[field].specials.map((s) => ({
      field,
      token: specialToken(s),
      description: describeSpecial(s),
    })),
  )
  const runs = scheduleRuns(spec, timezone, fromMs, input.count ?? 5, direction)
  return {
    expression: input.expression,
    normalized: spec.normalized,
    has_seconds: spec.has_seconds,
    fields,
    special,
    day_matching: dayMatching(spec),
    description: describeCron(spec),
    timezone,
    direction,
    from: formatFrom(timezone, fromMs),
    runs: runs.map((t) => formatInstant(timezone, t)),
  }
}
