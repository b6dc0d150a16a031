import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseJsonExact } from '../../../../src/ops/json/number.ts'
import { validateJson } from '../../../../src/ops/json/validate/validate.ts'

// json/validate against an independent implementation: Python's jsonschema (/usr/bin/python3, Debian's
// python3-jsonschema), on generated 2020-12 schema/instance pairs. Both read the same JSON text, Python with
// decimals (parse_float=Decimal), so both compare and divide numbers exactly. The generated schemas keep to
// what the two implement alike: no format assertion, patterns that mean the same to Python's re and to
// ECMA-262, no float with a zero fraction (Python's `integer` is not a Decimal 2.0), and no
// unevaluatedProperties / unevaluatedItems: Debian's jsonschema 4.10.3 gets them wrong beside some
// applicators ({"properties": {"c": true}, "additionalProperties": {"not": {"const": "ab"}},
// "unevaluatedProperties": false} refuses {"c": null, "a": [null]}, whose "a" additionalProperties
// evaluated); the test suite covers them.

const PYTHON = '/usr/bin/python3'
const haveJsonschema =
  existsSync(PYTHON) &&
  (() => {
    try {
      execFileSync(PYTHON, ['-c', 'import jsonschema'], { stdio: 'ignore' })
      return true
    } catch {
      return false
    }
  })()
if (!haveJsonschema && process.env.CI === 'true') {
  throw new Error(
    'CI=true but /usr/bin/python3 with jsonschema is missing (apt-get install python3-jsonschema)',
  )
}

const SCRIPT = `
import json, sys
from decimal import Decimal
from jsonschema import Draft202012Validator
for line in sys.stdin:
    pair = json.loads(line, parse_float=Decimal)
    try:
        print('1' if Draft202012Validator(pair['schema']).is_valid(pair['instance']) else '0')
    except Exception as e:
        print('E ' + type(e).__name__)
`

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON
const KEYS = ['a', 'b', 'c']
const PATTERNS = ['^a', 'b$', '[0-9]+', '^[a-c]{1,3}$', 'x|y', '^$']

// numbers written as they are sent: integers (some past 2^53), decimals with a non-zero last digit
const integer = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.constantFrom('12345678901234567890', '12345678901234567891', '-9007199254740993').map(rawJSON),
)
const decimal = fc
  .tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: 1, max: 99 }))
  .filter(([, f]) => f % 10 !== 0)
  .map(([i, f]) => rawJSON(`${i < 0 ? '-' : ''}${Math.abs(i)}.${String(f).padStart(2, '0')}`))
const number = fc.oneof(integer, decimal)
const positive = fc.constantFrom('0.01', '0.5', '2', '3', '0.25', '7').map(rawJSON)
const string = fc.oneof(
  fc.constantFrom('', 'a', 'ab', 'abc', 'xb', '123', 'b', 'ä😀'),
  fc.string({ maxLength: 4 }),
)

const instance = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    number,
    string,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 3 }),
  ),
})).value

// One keyword per leaf, so that each is what decides (a `type` beside a multipleOf would hide it).
const leaf = fc.oneof(
  fc.record({ type: fc.constantFrom('null', 'boolean', 'object', 'array', 'number', 'string', 'integer') }),
  fc.record({ minimum: number }),
  fc.record({ exclusiveMaximum: number }),
  fc.record({ multipleOf: positive }),
  fc.record({ minLength: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ maxLength: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ pattern: fc.constantFrom(...PATTERNS) }),
  fc.record({ const: instance }),
  fc.record({ enum: fc.array(instance, { minLength: 1, maxLength: 4 }) }),
  fc.record({ required: fc.uniqueArray(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 2 }) }),
  fc.record({ minProperties: fc.integer({ min: 1, max: 2 }) }),
  fc.record({
    dependentRequired: fc.dictionary(
      fc.constantFrom(...KEYS),
      fc.uniqueArray(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 2 }),
      { minKeys: 1, maxKeys: 2 },
    ),
  }),
  fc.record({ maxItems: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ uniqueItems: fc.constant(true) }),
)

const schema = fc.letrec((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.boolean(),
    fc.record(
      {
        properties: fc.dictionary(fc.constantFrom(...KEYS), tie('schema'), { maxKeys: 2 }),
        additionalProperties: tie('schema'),
        propertyNames: fc.record({ pattern: fc.constantFrom(...PATTERNS) }),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        prefixItems: fc.array(tie('schema'), { maxLength: 2 }),
        items: tie('schema'),
        contains: tie('schema'),
        minContains: fc.integer({ min: 0, max: 2 }),
      },
      { requiredKeys: [] },
    ),
    fc.record({ allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
    fc.record({ oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
    fc.record({ not: tie('schema') }),
    // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword
    fc.record({ if: tie('schema'), then: tie('schema'), else: tie('schema') }, { requiredKeys: ['if'] }),
  ),
})).schema

describe.skipIf(!haveJsonschema)("json/validate against Python's jsonschema", () => {
  it('agrees on the validity of 1500 generated schema/instance pairs', () => {
    const pairs = fc
      .sample(fc.tuple(schema, instance), { numRuns: 1500, seed: 39_2026 })
      .map(([s, i]) => JSON.stringify({ schema: s, instance: i }))
    const python = execFileSync(PYTHON, ['-c', SCRIPT], { input: `${pairs.join('\n')}\n`, encoding: 'utf8' })
      .trim()
      .split('\n')
    expect(python).toHaveLength(pairs.length)
    const disagreements = pairs.flatMap((line, k) => {
      const body = parseJsonExact(line) as { schema: unknown; instance: unknown }
      const ours = validateJson(body, { maxInstances: 1, maxErrors: 10, maxSteps: 1_000_000 }) as {
        valid: boolean
      }
      const theirs = python[k]
      return theirs === (ours.valid ? '1' : '0') ? [] : [`${line} → ours ${ours.valid}, python ${theirs}`]
    })
    expect(disagreements).toEqual([])
    // the generator makes both answers often enough to mean something
    expect(python.filter((p) => p === '1').length).toBeGreaterThan(300)
    expect(python.filter((p) => p === '0').length).toBeGreaterThan(300)
  })
})
