import cronstrue from 'cronstrue'
import { dayMatching } from './days.ts'
import { type DaySpecial, FIELD_NAMES, type ParsedField } from './fields.ts'
import type { CronSpec } from './parse.ts'

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth']

export function describeSpecial(special: DaySpecial): string {
  switch (special.kind) {
    case 'last':
      if (special.offset === 0) return 'the last day of the month'
      return `${special.offset} day${special.offset === 1 ? '' : 's'} before the last day of the month`
    case 'last_weekday':
      return 'the last weekday of the month'
    case 'nearest_weekday':
      return `the weekday nearest day ${special.day} of the month`
    case 'last_of_week':
      return `the last ${WEEKDAYS[special.weekday]} of the month`
    case 'nth_of_week':
      return `the ${ORDINALS[special.nth - 1]} ${WEEKDAYS[special.weekday]} of the month`
  }
}

// "every day", "every 2nd day", "every 11th day", …
function every(n: number, unit: string): string {
  if (n === 1) return `every ${unit}`
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')
  return `every ${n}${suffix} ${unit}`
}

// One canonical plain item ("5", "1-5", "*/2", "3/2", "1-20/3") in words.
function plainPhrase(text: string, weekdays: boolean): string {
  const [base = '', step] = text.split('/')
  const [a = '', b] = base.split('-')
  const one = (n: string) => (weekdays ? WEEKDAYS[Number(n)]! : `day ${n}`)
  const end = weekdays ? '6' : '31'
  if (step === undefined) {
    if (b === undefined) return weekdays ? one(a) : `${one(a)} of the month`
    return weekdays ? `${one(a)} through ${one(b)}` : `days ${a} through ${b} of the month`
  }
  const unit = weekdays ? 'day of the week' : 'day of the month'
  const from = base === '*' ? (weekdays ? '0' : '1') : a
  return `${every(Number(step), unit)} from ${one(from)} through ${one(b ?? end)}`
}

function phrases(field: ParsedField, weekdays: boolean): string {
  const texts = field.normalized.split(',')
  const words = texts.slice(0, texts.length - field.specials.length).map((t) => plainPhrase(t, weekdays))
  words.push(...field.specials.map(describeSpecial))
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`
}

// cronstrue words a lone L, W or # well, but garbles lists that mix them with other days and drops the
// "or" between two day fields when one of them holds such a token.
function needsOwnDayClause(spec: CronSpec): boolean {
  const dom = spec.fields.day_of_month
  const dow = spec.fields.day_of_week
  const mixes = (f: ParsedField) => f.specials.length > 0 && f.normalized.includes(',')
  if (mixes(dom) || mixes(dow)) return true
  // cronstrue reads both restricted day fields as "either"; Vixie's "both" gets its own wording
  if (dayMatching(spec) === 'both') return true
  return dayMatching(spec) === 'either' && dom.specials.length + dow.specials.length > 0
}

function ownDayClause(spec: CronSpec): string {
  const mode = dayMatching(spec)
  const dom = `on ${phrases(spec.fields.day_of_month, false)}`
  const dow = `on ${phrases(spec.fields.day_of_week, true)}`
  if (mode === 'either') return `${dom}, or ${dow}`
  if (mode === 'both') return `${dom}, if it is also ${dow.slice(3)}`
  return mode === 'day_of_month' ? dom : dow
}

function cronstrueText(expression: string): string | undefined {
  try {
    return cronstrue.toString(expression, { throwExceptionOnParseError: true, verbose: false })
  } catch {
    // a third-party describer must never turn a valid expression into a 500
    return undefined
  }
}

// English for a parsed expression, e.g. "At 02:30 AM" or "At 12:00 AM, on the last Friday of the month".
export function describeCron(spec: CronSpec): string {
  const { fields, has_seconds: hasSeconds } = spec
  const names = hasSeconds ? FIELD_NAMES : FIELD_NAMES.slice(1)
  const own = needsOwnDayClause(spec)
  const text = names
    .map((n) => (own && (n === 'day_of_month' || n === 'day_of_week') ? '*' : fields[n].normalized))
    .join(' ')
  const base = cronstrueText(text) ?? `Runs on the schedule ${spec.normalized}`
  return own ? `${base}, ${ownDayClause(spec)}` : base
}
