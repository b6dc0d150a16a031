import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  buildQuery,
  pairsToObject,
  parseQuery,
  type QueryPairs,
  queryParamsIssues,
} from '../../../src/ops/url/query.ts'

const anyUnit = fc.nat({ max: 0xffff }).map((n) => String.fromCharCode(n))

describe('parseQuery', () => {
  it('decodes application/x-www-form-urlencoded, with or without "?"', () => {
    const expected = {
      pairs: [
        ['a', '1'],
        ['a', '2'],
        ['b', '  '],
        ['c', ''],
        ['', 'x'],
      ],
      object: { a: ['1', '2'], b: '  ', c: '', '': 'x' },
    }
    expect(parseQuery({ query: '?a=1&a=2&b=%20+&c&=x' })).toEqual(expected)
    expect(parseQuery({ query: 'a=1&a=2&b=%20+&c&=x' })).toEqual(expected)
  })

  it('drops one "?" and empty sequences, keeps bad escapes, replaces bad UTF-8', () => {
    expect(parseQuery({ query: '??a&&b=%zz&c=%F0%9F%98%80&d=%FF' }).pairs).toEqual([
      ['?a', ''],
      ['b', '%zz'],
      ['c', '😀'],
      ['d', '\ufffd'],
    ])
    expect(parseQuery({ query: '' })).toEqual({ pairs: [], object: {} })
  })

  it('keeps "__proto__" and "constructor" as ordinary names', () => {
    const { object } = parseQuery({ query: '__proto__=1&constructor=2&__proto__=3' })
    expect(Object.getPrototypeOf(object)).toBe(null)
    expect(Object.hasOwn(object, '__proto__')).toBe(true)
    expect(Object.getOwnPropertyDescriptor(object, '__proto__')?.value).toEqual(['1', '3'])
    expect(object['constructor']).toBe('2')
    expect(({} as Record<string, unknown>)['1']).toBeUndefined()
  })
})

describe('buildQuery', () => {
  it('serializes as URLSearchParams does', () => {
    expect(
      buildQuery({
        params: [
          ['a b', '~*-._!'],
          ['é', '&=+'],
        ],
      }).query,
    ).toBe('a+b=%7E*-._%21&%C3%A9=%26%3D%2B')
  })

  it('repeats a name per array value and stringifies scalars; null is an empty value', () => {
    expect(buildQuery({ params: { n: [1, 2.5, -0], b: true, z: null, e: [] } }).query).toBe(
      'n=1&n=2.5&n=0&b=true&z=',
    )
    expect(
      buildQuery({
        params: [
          ['x', false],
          ['x', null],
        ],
      }).query,
    ).toBe('x=false&x=')
  })

  it('takes "__proto__" and "constructor" keys as names without touching Object.prototype', () => {
    const params = JSON.parse('{"__proto__":"x","constructor":["y","z"]}')
    expect(buildQuery({ params }).query).toBe('__proto__=x&constructor=y&constructor=z')
    expect(({} as Record<string, unknown>)['x']).toBeUndefined()
  })

  it('writes a lone surrogate as U+FFFD, as a USVString', () => {
    expect(buildQuery({ params: [['a\ud800', 'b']] }).query).toBe('a%EF%BF%BD=b')
  })

  it('round-trips any well-formed pairs through parseQuery', () => {
    const text = fc.string({ unit: 'binary', maxLength: 12 })
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { maxLength: 8 }), (pairs: QueryPairs) => {
        expect(parseQuery({ query: buildQuery({ params: pairs }).query }).pairs).toEqual(pairs)
      }),
      { numRuns: 300 },
    )
  })

  it('round-trips any UTF-16 pairs, with lone surrogates made U+FFFD', () => {
    const text = fc.string({ unit: anyUnit, maxLength: 12 })
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { maxLength: 8 }), (pairs: QueryPairs) => {
        const wellFormed = pairs.map(([n, v]) => [n.toWellFormed(), v.toWellFormed()])
        expect(parseQuery({ query: buildQuery({ params: pairs }).query }).pairs).toEqual(wellFormed)
      }),
      { numRuns: 300 },
    )
  })

  it('round-trips objects (names to arrays) to the same query_object', () => {
    const name = fc.string({ unit: 'binary', maxLength: 8 })
    const values = fc.array(fc.string({ unit: 'binary', maxLength: 8 }), { minLength: 2, maxLength: 3 })
    fc.assert(
      fc.property(fc.dictionary(name, values, { maxKeys: 6 }), (params) => {
        const { object } = parseQuery({ query: buildQuery({ params }).query })
        expect({ ...object }).toEqual({ ...params })
      }),
      { numRuns: 200 },
    )
  })
})

describe('pairsToObject and queryParamsIssues', () => {
  it('groups a name into an array from its second value', () => {
    expect(
      pairsToObject([
        ['a', '1'],
        ['b', '2'],
        ['a', '3'],
        ['a', '4'],
      ]),
    ).toEqual({ a: ['1', '3', '4'], b: '2' })
  })

  it('locates shape errors', () => {
    expect(queryParamsIssues({ a: 'x', b: [1, {}], c: { d: 1 }, e: Number.NaN })).toEqual([
      { path: ['b', 1], message: expect.any(String) },
      { path: ['c'], message: expect.any(String) },
      { path: ['e'], message: expect.any(String) },
    ])
    expect(queryParamsIssues([['a', 1], ['b'], [2, 'x'], ['c', []]]).map((i) => i.path)).toEqual([
      [1],
      [2, 0],
      [3, 1],
    ])
    expect(queryParamsIssues('a=b')).toEqual([{ path: [], message: expect.stringContaining('Expected') }])
    expect(queryParamsIssues(JSON.parse('{"__proto__":{"x":1}}'))).toEqual([
      { path: ['__proto__'], message: expect.any(String) },
    ])
    expect(queryParamsIssues([])).toEqual([])
  })
})
