import { keepShape } from '../../../lib/kept-shapes.ts'

// The one value model every format is read into and written from (docs/decisions.md, "Data conversion").
//
// JSON's values, plus what YAML 1.2 and TOML 1.0 hold that JSON does not, each kept exactly:
// - a number whose text is not its double's String() (12345678901234567890, 1.0, 1e5, 0.10000000000000001)
//   is a DataNumber holding its decimal text in JSON's syntax; any other number is a plain double. Either
//   way an integer is told from a float by its text, as TOML tells them (1 is an integer, 1.0 a float);
// - infinities and NaN (YAML's .inf and .nan, TOML's inf and nan) are SpecialFloats;
// - TOML's four date and time types are DataDates holding their RFC 3339 text;
// - a mapping is a Map, so that every key keeps its place (a plain object puts integer-like keys first).
// A container may appear more than once in a document (a YAML alias): it is shared, never copied, and the
// writers expand it (size.ts bounds what that may cost).

export class DataNumber {
  // JSON's number syntax: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  readonly text: string
  readonly integer: boolean
  constructor(text: string, integer: boolean) {
    this.text = text
    this.integer = integer
  }
}
keepShape(new DataNumber('1.0', false))

export type SpecialFloatText = 'inf' | '-inf' | 'nan'

export class SpecialFloat {
  readonly text: SpecialFloatText
  constructor(text: SpecialFloatText) {
    this.text = text
  }
}
keepShape(new SpecialFloat('inf'))

export const DATE_KINDS = ['datetime', 'datetime-local', 'date-local', 'time-local'] as const
export type DateKind = (typeof DATE_KINDS)[number]

export class DataDate {
  readonly kind: DateKind
  // RFC 3339 (its date, its time, or both, with "T", and "Z" or an offset for `datetime`)
  readonly text: string
  constructor(kind: DateKind, text: string) {
    this.kind = kind
    this.text = text
  }
}
keepShape(new DataDate('date-local', '2026-12-01'))

export type DataMap = Map<string, DataValue>
export type DataValue =
  | null
  | boolean
  | string
  | number
  | DataNumber
  | SpecialFloat
  | DataDate
  | DataValue[]
  | DataMap

// A number from its text in JSON's syntax: a plain double when that double prints back as the text.
export function numberFromJsonText(text: string, integer: boolean): number | DataNumber {
  const n = Number(text)
  return String(n) === text ? n : new DataNumber(text, integer)
}

export function isInteger(value: number | DataNumber): boolean {
  if (typeof value !== 'number') return value.integer
  return Number.isInteger(value) && Math.abs(value) < 1e21
}

export function numberText(value: number | DataNumber): string {
  return typeof value === 'number' ? String(value) : value.text
}
