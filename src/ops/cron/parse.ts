import {
  FIELD_DEFS,
  FIELD_NAMES,
  type FieldDef,
  type FieldName,
  invalidCron,
  type ParsedField,
  specialToken,
} from './fields.ts'
import { type NormalizedPart, parseItem } from './item.ts'

export interface CronSpec {
  has_seconds: boolean
  normalized: string
  // a 5-field expression gets second = [0]
  fields: Record<FieldName, ParsedField>
}

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
}

const SIX: readonly FieldName[] = FIELD_NAMES
const FIVE: readonly FieldName[] = FIELD_NAMES.slice(1)

function fullRange(def: FieldDef): number[] {
  return Array.from({ length: def.max - def.min + 1 }, (_, i) => def.min + i)
}

function parseField(def: FieldDef, text: string, at: number): ParsedField {
  if (text === '?' && def.days) {
    return {
      values: fullRange(def),
      specials: [],
      wildcard: true,
      starred: true,
      stepped: true,
      normalized: '*',
      at,
    }
  }
  const values = new Set<number>()
  const specials = new Map<string, ParsedField['specials'][number]>()
  const parts = new Map<string, NormalizedPart>()
  let stepped = false
  let offset = at
  const items = text.split(',')
  for (const raw of items) {
    const item = parseItem(def, raw, offset)
    if (item.kind === 'special') {
      specials.set(specialToken(item.special), item.special)
    } else {
      if (raw === '*' && items.length > 1) {
        throw invalidCron(def.name, offset, '* cannot be combined with other items in a list')
      }
      for (const v of item.values) values.add(v)
      for (const p of item.parts) parts.set(p.text, p)
      stepped ||= item.stepped
    }
    offset += raw.length + 1
  }
  const starred = text.startsWith('*')
  // Vixie reads a day field that starts with * differently (days.ts), so normalizing must not move
  // a */n item to the front of a day field that did not start with one: it is spelled as its range there
  // ("5,*/2" → "1-31/2,5"), and the first item of one that did stays first ("*/2,5").
  const plain = [...parts.values()]
    .map((p) =>
      def.days && !starred && p.key < 0
        ? { key: def.min, text: `${def.min}-${def.max}${p.text.slice(1)}` }
        : p,
    )
    .sort((a, b) => a.key - b.key || a.text.localeCompare(b.text))
  const tokens = [...specials.keys()].sort()
  return {
    values: [...values].sort((a, b) => a - b),
    specials: tokens.map((t) => specials.get(t)!),
    wildcard: text === '*',
    starred,
    stepped,
    normalized: [...plain.map((p) => p.text), ...tokens].join(','),
    at,
  }
}

function parseMacro(tokens: RegExpExecArray[]): CronSpec {
  const first = tokens[0]!
  if (tokens.length > 1) throw invalidCron('expression', tokens[1]!.index, 'a @macro must stand alone')
  const name = first[0].toLowerCase()
  if (name === '@reboot') {
    throw invalidCron('expression', first.index, '@reboot runs at startup and has no schedule')
  }
  const expansion = Object.hasOwn(MACROS, name) ? MACROS[name] : undefined
  if (expansion === undefined) {
    throw invalidCron(
      'expression',
      first.index,
      `unknown macro "${first[0]}" (use ${Object.keys(MACROS).join(', ')})`,
    )
  }
  return parseFields(expansion, [...expansion.matchAll(/\S+/g)])
}

function parseFields(expression: string, tokens: RegExpExecArray[]): CronSpec {
  if (tokens.length > 6) {
    throw invalidCron('expression', tokens[6]!.index, `expected 5 or 6 fields, found ${tokens.length}`)
  }
  if (tokens.length < 5) {
    throw invalidCron('expression', expression.length, `expected 5 or 6 fields, found ${tokens.length}`)
  }
  const names = tokens.length === 6 ? SIX : FIVE
  const parsed = new Map<FieldName, ParsedField>()
  names.forEach((name, i) => {
    const token = tokens[i]!
    parsed.set(name, parseField(FIELD_DEFS[name], token[0], token.index))
  })
  const fields: Record<FieldName, ParsedField> = {
    second: parsed.get('second') ?? {
      values: [0],
      specials: [],
      wildcard: false,
      starred: false,
      stepped: false,
      normalized: '0',
      at: 0,
    },
    minute: parsed.get('minute')!,
    hour: parsed.get('hour')!,
    day_of_month: parsed.get('day_of_month')!,
    month: parsed.get('month')!,
    day_of_week: parsed.get('day_of_week')!,
  }
  return {
    has_seconds: tokens.length === 6,
    normalized: names.map((n) => fields[n].normalized).join(' '),
    fields,
  }
}

// Expression text → fields. Every error names the field and the 0-based offset of the offending token.
export function parseCron(expression: string): CronSpec {
  const tokens = [...expression.matchAll(/\S+/g)]
  if (tokens.length === 0) throw invalidCron('expression', 0, 'the expression is empty')
  if (tokens[0]![0].startsWith('@')) return parseMacro(tokens)
  return parseFields(expression, tokens)
}
