import { AppError } from '../../errors.ts'

export const FIELD_NAMES = ['second', 'minute', 'hour', 'day_of_month', 'month', 'day_of_week'] as const
export type FieldName = (typeof FIELD_NAMES)[number]

export interface FieldDef {
  name: FieldName
  min: number
  max: number
  // largest number accepted as written (day_of_week takes 7 as a second spelling of Sunday)
  maxInput: number
  names?: readonly string[]
  // a list may hold L, W and # tokens
  days?: boolean
}

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC']
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT']

export const FIELD_DEFS: Readonly<Record<FieldName, FieldDef>> = {
  second: { name: 'second', min: 0, max: 59, maxInput: 59 },
  minute: { name: 'minute', min: 0, max: 59, maxInput: 59 },
  hour: { name: 'hour', min: 0, max: 23, maxInput: 23 },
  day_of_month: { name: 'day_of_month', min: 1, max: 31, maxInput: 31, days: true },
  month: { name: 'month', min: 1, max: 12, maxInput: 12, names: MONTH_NAMES },
  day_of_week: { name: 'day_of_week', min: 0, max: 6, maxInput: 7, names: DAY_NAMES, days: true },
}

// The value a month or weekday name stands for (JAN = 1, SUN = 0), or undefined.
export function nameValue(def: FieldDef, name: string): number | undefined {
  const index = def.names?.indexOf(name) ?? -1
  if (index < 0) return undefined
  return def.name === 'month' ? index + 1 : index
}

// L, W and # tokens: days that depend on the month being looked at, so they are not plain values.
export type DaySpecial =
  | { kind: 'last'; offset: number } // L, L-n (day_of_month)
  | { kind: 'last_weekday' } // LW (day_of_month)
  | { kind: 'nearest_weekday'; day: number } // nW (day_of_month)
  | { kind: 'last_of_week'; weekday: number } // nL (day_of_week)
  | { kind: 'nth_of_week'; weekday: number; nth: number } // n#k (day_of_week)

export interface ParsedField {
  // plain values, sorted and unique; a wildcard gives the whole range
  values: number[]
  specials: DaySpecial[]
  // the field is exactly * or ?: every value
  wildcard: boolean
  // the field starts with * (or is ?): for the two day fields this is Vixie cron's DOM_STAR / DOW_STAR,
  // which makes a day match both fields instead of either (see days.ts)
  starred: boolean
  // some item uses * or a step: for the hour field this selects the DST policy of wildcard jobs
  stepped: boolean
  normalized: string
  // offset of the field's token in the expression
  at: number
}

export function invalidCron(field: FieldName | 'expression', position: number, reason: string): AppError {
  return new AppError('ERR_INVALID_CRON', `Invalid cron expression (${field}, at ${position}): ${reason}`, {
    field,
    position,
    reason,
  })
}

export function specialToken(special: DaySpecial): string {
  switch (special.kind) {
    case 'last':
      return special.offset === 0 ? 'L' : `L-${special.offset}`
    case 'last_weekday':
      return 'LW'
    case 'nearest_weekday':
      return `${special.day}W`
    case 'last_of_week':
      return `${special.weekday}L`
    case 'nth_of_week':
      return `${special.weekday}#${special.nth}`
  }
}
