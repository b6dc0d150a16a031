import fc from 'fast-check'
import { describe, it } from 'vitest'
import { convertData, defaultBounds, MAX_DEPTH } from '../../../src/ops/data/convert.ts'
import { readJson } from '../../../src/ops/data/json/read.ts'
import type { ConvertOptions, DataFormat } from '../../../src/ops/data/types.ts'
import { sameValue } from '../../conformance/data-values.ts'

// Each format written from JSON and read back gives the same document, numbers' kinds and exact values
// included (1.0 stays a float, 12345678901234567890 and 0.10000000000000001 stay as they are), for every
// document the format can hold: the inverse of each writer is its reader.

function convert(input: string, from: DataFormat, to: DataFormat, options?: ConvertOptions): string {
  return convertData({ input, from, to, ...(options ? { options } : {}) }, defaultBounds(input.length)).output
}

const digits = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''))
const integer = (max: number) =>
  fc
    .tuple(fc.boolean(), fc.integer({ min: 1, max: 9 }), digits(0, max))
    .map(([negative, first, rest]) => `${negative ? '-' : ''}${first}${rest}`)
const decimal = fc
  .tuple(
    fc.boolean(),
    digits(1, 1),
    digits(1, 25),
    fc.option(fc.integer({ min: -300, max: 300 }), { nil: undefined }),
  )
  .map(([negative, int, fraction, exponent]) => {
    const text = `${negative ? '-' : ''}${int}.${fraction}`
    return exponent === undefined ? text : `${text}e${exponent}`
  })
const key = fc.string({ maxLength: 8 })
const text = fc.string({ maxLength: 10 })

function jsonDocument(numbers: fc.Arbitrary<string>, nulls: boolean): fc.Arbitrary<string> {
  const leaf = fc.oneof(
    numbers,
    text.map((s) => JSON.stringify(s)),
    fc.constantFrom('true', 'false', ...(nulls ? ['null'] : [])),
  )
  const { node } = fc.letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.array(tie('node'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
      fc
        .uniqueArray(fc.tuple(key, tie('node')), { maxLength: 4, selector: ([k]) => k })
        .map((members) => `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
    ),
  }))
  return fc
    .uniqueArray(fc.tuple(key, node), { maxLength: 5, selector: ([k]) => k })
    .map((members) => `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`)
}

function roundTrip(json: string, to: DataFormat, options?: ConvertOptions): boolean {
  const back = convert(convert(json, 'json', to), to, 'json', options)
  return sameValue(readJson(back, MAX_DEPTH), readJson(json, MAX_DEPTH), true)
}

describe('data/convert round trips (property)', () => {
  it('JSON → YAML → JSON: any document, any integer, any decimal', () => {
    fc.assert(
      fc.property(jsonDocument(fc.oneof(integer(40), decimal), true), (json) => roundTrip(json, 'yaml')),
    )
  })

  it('JSON → TOML → JSON: objects without null, 64-bit integers, decimals a double does not overflow', () => {
    const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String)
    const inRange = decimal.filter(
      (d) => Number.isFinite(Number(d)) && (Number(d) !== 0 || !/[1-9]/.test(d.split('e')[0]!)),
    )
    fc.assert(fc.property(jsonDocument(fc.oneof(int64, inRange), false), (json) => roundTrip(json, 'toml')))
  })

  it('JSON → CSV → JSON with types "infer": flat rows of any scalars', () => {
    const cell = fc.oneof(
      integer(30),
      decimal,
      text.map((s) => JSON.stringify(s)),
      fc.constantFrom('true', 'false', 'null'),
    )
    const rows = fc.uniqueArray(key, { minLength: 2, maxLength: 4 }).chain((names) =>
      fc
        .array(fc.array(cell, { minLength: names.length, maxLength: names.length }), {
          minLength: 1,
          maxLength: 4,
        })
        .map(
          (table) =>
            `[${table.map((row) => `{${names.map((n, i) => `${JSON.stringify(n)}:${row[i]}`).join(',')}}`).join(',')}]`,
        ),
    )
    fc.assert(fc.property(rows, (json) => roundTrip(json, 'csv', { types: 'infer' })))
  })
})
