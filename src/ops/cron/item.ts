import { type DaySpecial, type FieldDef, invalidCron, nameValue } from './fields.ts'

// One comma-separated item of a field, parsed. `parts` is its canonical spelling (one or more list items).
export type CronItem =
  | { kind: 'plain'; values: number[]; star: boolean; stepped: boolean; parts: NormalizedPart[] }
  | { kind: 'special'; special: DaySpecial }

export interface NormalizedPart {
  key: number
  text: string
}

const WORD = /^[0-9A-Z]+$/
const DIGITS = /^[0-9]+$/

// A number or a name, checked against the field's range; `at` is its offset in the expression.
function parseValue(def: FieldDef, text: string, at: number): number {
  if (DIGITS.test(text)) {
    const n = text.length > 4 ? Number.POSITIVE_INFINITY : Number(text)
    if (n < def.min || n > def.maxInput) {
      throw invalidCron(def.name, at, `value ${text} is out of range ${def.min}-${def.maxInput}`)
    }
    return n
  }
  const named = nameValue(def, text)
  if (named === undefined) {
    const reason = def.names
      ? `unknown name "${text}" (use ${def.names[0]}-${def.names[def.names.length - 1]} or numbers)`
      : `"${text}" is not a number`
    throw invalidCron(def.name, at, reason)
  }
  return named
}

function parseStep(def: FieldDef, text: string, at: number): number {
  const size = def.max - def.min + 1
  if (!DIGITS.test(text)) throw invalidCron(def.name, at, 'a step must be a whole number after "/"')
  const step = text.length > 4 ? Number.POSITIVE_INFINITY : Number(text)
  if (step < 1 || step > size) throw invalidCron(def.name, at, `step ${text} is out of range 1-${size}`)
  return step
}

function firstBadChar(text: string, at: number, def: FieldDef): never {
  if (text === '') throw invalidCron(def.name, at, 'missing value')
  const i = text.search(/[^0-9A-Z*?/#,-]/)
  const pos = i < 0 ? at : at + i
  const reason = i < 0 ? `"${text}" is not a valid item` : `unexpected character "${text[i]}"`
  throw invalidCron(def.name, pos, reason)
}

function parseDaySpecial(def: FieldDef, text: string, at: number): DaySpecial | undefined {
  if (def.name === 'day_of_month') {
    const last = /^L(?:-([0-9]+))?$/.exec(text)
    if (last) {
      const offset = last[1] === undefined ? 0 : parseValueRange(def, last[1], at + 2, 0, 30)
      return { kind: 'last', offset }
    }
    if (text === 'LW') return { kind: 'last_weekday' }
    const near = /^([0-9A-Z]+)W$/.exec(text)
    if (near) return { kind: 'nearest_weekday', day: parseValue(def, near[1]!, at) }
    return undefined
  }
  if (text === 'L') throw invalidCron(def.name, at, 'L in day_of_week needs a weekday before it, e.g. 5L')
  const lastOf = /^([0-9A-Z]+)L$/.exec(text)
  if (lastOf) return { kind: 'last_of_week', weekday: parseValue(def, lastOf[1]!, at) % 7 }
  const nth = /^([0-9A-Z]+)#(.*)$/.exec(text)
  if (nth) {
    const weekday = parseValue(def, nth[1]!, at) % 7
    const k = parseValueRange(def, nth[2]!, at + nth[1]!.length + 1, 1, 5)
    return { kind: 'nth_of_week', weekday, nth: k }
  }
  return undefined
}

function parseValueRange(def: FieldDef, text: string, at: number, min: number, max: number): number {
  if (text === '') throw invalidCron(def.name, at, `a number ${min}-${max} is missing`)
  const n = DIGITS.test(text) && text.length <= 4 ? Number(text) : Number.NaN
  if (!(n >= min && n <= max)) throw invalidCron(def.name, at, `"${text}" must be a number ${min}-${max}`)
  return n
}

// Consecutive runs of sorted values as "a-b" parts.
function runsOf(values: number[]): NormalizedPart[] {
  const sorted = [...new Set(values)].sort((a, b) => a - b)
  const parts: NormalizedPart[] = []
  for (let i = 0; i < sorted.length; ) {
    let j = i
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++
    parts.push({ key: sorted[i]!, text: i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}` })
    i = j + 1
  }
  return parts
}

interface Span {
  from: number
  to: number
  step: number
  stepText: string
}

function plainItem(def: FieldDef, span: Span, spelled: string, star: boolean): CronItem {
  const values: number[] = []
  for (let v = span.from; v <= span.to; v += span.step) values.push(v % (def.max + 1))
  // 7 (Sunday again) has no canonical spelling inside a range, so such items are spelled as the days they give
  const parts = span.to > def.max ? runsOf(values) : [{ key: star ? -1 : span.from, text: spelled }]
  return { kind: 'plain', values, star, stepped: star || span.stepText !== '', parts }
}

// Grammar: * | ? | value | value-value, each with an optional /step; day fields add L, L-n, LW, nW, nL, n#k.
export function parseItem(def: FieldDef, raw: string, at: number): CronItem {
  // ASCII-only upper-casing keeps every offset in place (toUpperCase turns "ß" into "SS")
  const text = raw.replace(/[a-z]+/g, (s) => s.toUpperCase())
  if (text === '') throw invalidCron(def.name, at, 'empty list item')
  const slash = text.indexOf('/')
  const base = slash < 0 ? text : text.slice(0, slash)
  const step = slash < 0 ? 1 : parseStep(def, text.slice(slash + 1), at + slash + 1)
  const stepText = slash < 0 ? '' : `/${step}`
  if (base === '*')
    return plainItem(def, { from: def.min, to: def.max, step, stepText }, `*${stepText}`, true)
  if (base === '?')
    throw invalidCron(def.name, at, '? is allowed only as the whole day_of_month or day_of_week')
  if (base === '') throw invalidCron(def.name, at, 'missing value before "/"')
  if (def.days) {
    const special = parseDaySpecial(def, base, at)
    if (special) {
      if (slash >= 0) throw invalidCron(def.name, at + slash, 'a step cannot follow L, W or #')
      return { kind: 'special', special }
    }
  }
  const dash = base.indexOf('-')
  const startText = dash < 0 ? base : base.slice(0, dash)
  if (!WORD.test(startText)) firstBadChar(startText, at, def)
  const start = parseValue(def, startText, at)
  if (dash < 0) {
    // a/step runs to the end of the field's range (Sunday is not reached twice in day_of_week)
    const end = slash < 0 ? start : Math.max(start, def.max)
    return plainItem(def, { from: start, to: end, step, stepText }, `${start}${stepText}`, false)
  }
  const endText = base.slice(dash + 1)
  if (!WORD.test(endText)) firstBadChar(endText, at + dash + 1, def)
  const end = parseValue(def, endText, at + dash + 1)
  if (start > end) throw invalidCron(def.name, at, `range ${startText}-${endText} runs backwards`)
  return plainItem(def, { from: start, to: end, step, stepText }, `${start}-${end}${stepText}`, false)
}
