import { describe, expect, it } from 'vitest'
import { parseJsonExact } from '../../../../src/ops/json/number.ts'
import { GENERATED_UP_TO, propertiesCheck, requiredCheck } from '../../../../src/ops/json/validate/members.ts'
import { validateBody } from '../../../../src/ops/json/validate/schema.ts'
import { type InstanceResult, validateJson } from '../../../../src/ops/json/validate/validate.ts'

// properties and required read members by name in generated code (members.ts), and uniqueItems compares
// short arrays pair by pair (keyword-arrays.ts): each answers as the general loop does, at its bound and
// past it, whatever the names.

const BOUNDS = { maxInstances: 100, maxErrors: 100, maxSteps: 1_000_000 }

function run(body: string): InstanceResult {
  return validateJson(validateBody.parse(parseJsonExact(body)), BOUNDS) as InstanceResult
}

// names a generated function must write as literals and read as own members only
const NAMES = [
  'a',
  '',
  'say "hi"',
  'back\\slash',
  'line\nbreak',
  'sep\u2028x',
  `\${x}`,
  '__proto__',
  'constructor',
  'toString',
  'é😀',
]

function object(names: string[], value: (i: number) => unknown): string {
  return `{${names.map((n, i) => `${JSON.stringify(n)}:${JSON.stringify(value(i))}`).join(',')}}`
}

describe('json/validate members by name', () => {
  it('reads every kind of name, and a name Object.prototype has only as an own member', () => {
    const schema = {
      properties: Object.fromEntries(NAMES.map((n) => [n, { type: 'integer' }])),
      required: NAMES,
    }
    const all = run(`{"schema":${JSON.stringify(schema)},"instance":${object(NAMES, (i) => i)}}`)
    expect(all).toEqual({ valid: true, errors: [], errors_omitted: 0 })
    const wrong = run(`{"schema":${JSON.stringify(schema)},"instance":${object(NAMES, (i) => `s${i}`)}}`)
    expect(wrong.errors.map((e) => e.instance_location)).toEqual(
      NAMES.map((n) => `/${n.replaceAll('~', '~0').replaceAll('/', '~1')}`),
    )
    // {} inherits constructor, toString and __proto__: none of them is a member
    const empty = run(`{"schema":${JSON.stringify(schema)},"instance":{}}`)
    expect(empty.errors.map((e) => e.message)).toEqual(
      NAMES.map((n) => `the required property "${n}" is missing`),
    )
    expect(empty.errors.every((e) => e.keyword_location === '/required')).toBe(true)
  })

  it(`generates a reader for up to ${GENERATED_UP_TO} names and loops past it, with the same answers`, () => {
    for (const count of [GENERATED_UP_TO, GENERATED_UP_TO + 1]) {
      const names = Array.from({ length: count }, (_, i) => (i === 0 ? 'constructor' : `m${i}`))
      const nodes = names.map(() => ({ check: () => true, place: undefined as never, schema: true }))
      expect(propertiesCheck(names, nodes).name, `${count} names`).toBe(
        count <= GENERATED_UP_TO ? 'properties' : '',
      )
      expect(requiredCheck(names, undefined as never).name).toBe(count <= GENERATED_UP_TO ? 'required' : '')
      const schema = {
        properties: Object.fromEntries(names.map((n) => [n, { maximum: 5 }])),
        required: names,
      }
      const some = names.filter((_, i) => i % 3 === 0)
      const result = run(`{"schema":${JSON.stringify(schema)},"instance":${object(some, (i) => i * 3)}}`)
      const over = some.filter((_, i) => i * 3 > 5).map((n) => `/${n}`)
      expect(
        result.errors.filter((e) => e.keyword_location.endsWith('/maximum')).map((e) => e.instance_location),
      ).toEqual(over)
      expect(result.errors.filter((e) => e.keyword_location === '/required')).toHaveLength(
        count - some.length,
      )
    }
  })
})

describe('json/validate uniqueItems', () => {
  it('finds the first duplicate alike in 8 items (pair by pair) and in 9 (keyed), by value', () => {
    for (const length of [8, 9]) {
      const items: unknown[] = Array.from({ length }, (_, i) => ({ k: i, v: [i] }))
      const unique = run(`{"schema":{"uniqueItems":true},"instance":${JSON.stringify(items)}}`)
      expect(unique.valid, `${length} distinct items`).toBe(true)
      // item 7 equals item 0 by value: another key order, 0.0 for 0
      const text = JSON.stringify(items).replace(/\{"k":7,"v":\[7\]\}/, '{"v":[0.0],"k":0}')
      const duplicate = run(`{"schema":{"uniqueItems":true},"instance":${text}}`)
      expect(
        duplicate.errors.map((e) => e.message),
        `${length} items`,
      ).toEqual(['items 0 and 7 are equal'])
    }
  })
})
