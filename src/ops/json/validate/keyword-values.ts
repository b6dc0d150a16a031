import { compareNumbers, isIntegral, type JsonNumber, multipleOfTest, numberText } from '../decimal.ts'
import { isJsonNumber, isRawNumber } from '../number.ts'
import { isObject, jsonEqual } from '../value.ts'
import type { KeywordCompiler, Site } from './compile.ts'
import { FORMATS } from './formats.ts'
import { canonicalKey } from './keyword-canonical.ts'

// Assertions on a value itself: type, enum, const, the numeric and string bounds, pattern, format.

const TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer'])

export function jsonType(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'boolean') return 'boolean'
  if (typeof value === 'string') return 'string'
  if (typeof value === 'number' || isRawNumber(value)) return 'number'
  return Array.isArray(value) ? 'array' : 'object'
}

// Up to draft-04 an integer is written without a fraction or exponent (1.0 is not one); since draft-06 it
// is any number whose value is whole (1.0 is).
function integerTest(site: Site): (value: JsonNumber) => boolean {
  if (site.dialect !== 'draft-04') return isIntegral
  return (value) => (typeof value === 'number' ? Number.isInteger(value) : /^-?\d+$/.test(value.rawJSON))
}

function hasType(value: unknown, type: string, isInteger: (v: JsonNumber) => boolean): boolean {
  switch (type) {
    case 'integer':
      return isJsonNumber(value) && isInteger(value)
    case 'number':
      return isJsonNumber(value)
    case 'object':
      return isObject(value)
    case 'array':
      return Array.isArray(value)
    default:
      return jsonType(value) === type
  }
}

// One type's test, chosen when the schema is compiled rather than by name on every value.
function typeTest(type: string, isInteger: (v: JsonNumber) => boolean): (value: unknown) => boolean {
  switch (type) {
    case 'string':
      return (v) => typeof v === 'string'
    case 'object':
      return isObject
    case 'array':
      return Array.isArray
    case 'boolean':
      return (v) => typeof v === 'boolean'
    case 'null':
      return (v) => v === null
    case 'number':
      return isJsonNumber
    default:
      return (v) => hasType(v, type, isInteger)
  }
}

const type: KeywordCompiler = (site, value) => {
  const types = typeof value === 'string' ? [value] : value
  if (
    !Array.isArray(types) ||
    types.length === 0 ||
    !types.every((t) => typeof t === 'string' && TYPES.has(t))
  ) {
    site.invalid('type', 'a type name or a non-empty array of them')
  }
  const list = types as string[]
  const isInteger = integerTest(site)
  const place = site.place
  const wanted = list.join(' or ')
  if (list.length === 1) {
    const is = typeTest(list[0]!, isInteger)
    return (v, cx) => is(v) || cx.fail(place, 'type', `expected ${wanted}, got ${jsonType(v)}`)
  }
  // loops, not .some(callback): a callback is a closure allocated on every call
  return (v, cx) => {
    for (let i = 0; i < list.length; i++) if (hasType(v, list[i]!, isInteger)) return true
    return cx.fail(place, 'type', `expected ${wanted}, got ${jsonType(v)}`)
  }
}

const enumKeyword: KeywordCompiler = (site, value) => {
  if (!Array.isArray(value)) site.invalid('enum', 'an array')
  const members = value as unknown[]
  const place = site.place
  const message = 'the value is not one of the enumerated values'
  // a long enum is looked up by canonical text (exact decimal numbers, sorted keys): one pass, not one per member
  if (members.length > 8) {
    const keys = new Set(members.map(canonicalKey))
    return (v, cx) => keys.has(canonicalKey(v)) || cx.fail(place, 'enum', message)
  }
  return (v, cx) => {
    for (let i = 0; i < members.length; i++) if (jsonEqual(members[i], v)) return true
    return cx.fail(place, 'enum', message)
  }
}

const constKeyword: KeywordCompiler = (site, value) => {
  const place = site.place
  return (v, cx) => jsonEqual(value, v) || cx.fail(place, 'const', 'the value is not the constant')
}

function numberValue(site: Site, keyword: string, value: unknown): JsonNumber {
  if (!isJsonNumber(value)) site.invalid(keyword, 'a number')
  return value as JsonNumber
}

function bound(keyword: string, holds: (order: number) => boolean, words: string): KeywordCompiler {
  return (site, value) => {
    // draft-04: exclusiveMaximum and exclusiveMinimum are booleans read by maximum and minimum
    if (typeof value === 'boolean') return undefined
    const limit = numberValue(site, keyword, value)
    let strict = holds
    let say = words
    if (site.dialect === 'draft-04' && (keyword === 'maximum' || keyword === 'minimum')) {
      const exclusive = site.schema[keyword === 'maximum' ? 'exclusiveMaximum' : 'exclusiveMinimum']
      if (exclusive === true) {
        strict = (order) => holds(order) && order !== 0
        say = keyword === 'maximum' ? 'less than' : 'greater than'
      }
    }
    const place = site.place
    const text = numberText(limit)
    return (v, cx) =>
      !isJsonNumber(v) ||
      strict(compareNumbers(v, limit)) ||
      cx.fail(place, keyword, `${numberText(v)} is not ${say} ${text}`)
  }
}

const multipleOf: KeywordCompiler = (site, value) => {
  const divisor = numberValue(site, 'multipleOf', value)
  if (compareNumbers(divisor, 0) <= 0) site.invalid('multipleOf', 'a number greater than 0')
  const place = site.place
  const isMultiple = multipleOfTest(divisor)
  return (v, cx) =>
    !isJsonNumber(v) ||
    isMultiple(v) ||
    cx.fail(place, 'multipleOf', `${numberText(v)} is not a multiple of ${numberText(divisor)}`)
}

export function count(site: Site, keyword: string, value: unknown): number {
  const n = isRawNumber(value) ? Number(value.rawJSON) : value
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) site.invalid(keyword, 'a non-negative integer')
  return n as number
}

// String lengths count code points (a surrogate pair is one character).
function codePoints(s: string): number {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--
        i++
      }
    }
  }
  return n
}

const minLength: KeywordCompiler = (site, value) => {
  const n = count(site, 'minLength', value)
  const place = site.place
  return (v, cx) =>
    typeof v !== 'string' ||
    v.length >= n * 2 ||
    codePoints(v) >= n ||
    cx.fail(place, 'minLength', `the string is shorter than ${n} characters`)
}

const maxLength: KeywordCompiler = (site, value) => {
  const n = count(site, 'maxLength', value)
  const place = site.place
  return (v, cx) =>
    typeof v !== 'string' ||
    v.length <= n ||
    codePoints(v) <= n ||
    cx.fail(place, 'maxLength', `the string is longer than ${n} characters`)
}

const pattern: KeywordCompiler = (site, value) => {
  if (typeof value !== 'string') site.invalid('pattern', 'a string')
  const re = site.compiler.regex(value as string, `${site.place.doc}/pattern`)
  const place = site.place
  return (v, cx) =>
    typeof v !== 'string' || re.search(v) || cx.fail(place, 'pattern', `the string does not match ${value}`)
}

const format: KeywordCompiler = (site, value) => {
  if (typeof value !== 'string') site.invalid('format', 'a string')
  if (!site.compiler.options.formatAssertion && !site.place.resource.formatAssertion) return undefined
  const test = Object.hasOwn(FORMATS, value as string) ? FORMATS[value as string] : undefined
  if (test === undefined) return undefined
  const place = site.place
  return (v, cx) =>
    typeof v !== 'string' || test(v) || cx.fail(place, 'format', `the string is not a valid ${value}`)
}

export const VALUE_KEYWORDS: Record<string, KeywordCompiler> = {
  type,
  enum: enumKeyword,
  const: constKeyword,
  multipleOf,
  maximum: bound('maximum', (o) => o <= 0, 'at most'),
  minimum: bound('minimum', (o) => o >= 0, 'at least'),
  exclusiveMaximum: bound('exclusiveMaximum', (o) => o < 0, 'less than'),
  exclusiveMinimum: bound('exclusiveMinimum', (o) => o > 0, 'greater than'),
  minLength,
  maxLength,
  pattern,
  format,
}
