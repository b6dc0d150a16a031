import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyQueryOps, modifyUrl } from '../../../src/ops/url/modify.ts'
import type { QueryPairs } from '../../../src/ops/url/query.ts'

describe('modifyUrl', () => {
  it('sets components, edits the query, sorts, then strips the hash', () => {
    const r = modifyUrl({
      url: 'https://example.com:8443/old?b=2&a=1&z=0&a=3#frag',
      set: { protocol: 'http', port: 8080, pathname: '/new path' },
      query: { delete: ['z'], set: { a: ['9', '10'] }, append: [['c', 3]] },
      sort_query: true,
      strip_hash: true,
    })
    expect(r.href).toBe('http://example.com:8080/new%20path?a=9&a=10&b=2&c=3')
    expect(r.hash).toBe('')
  })

  it('applies set in a fixed order: href first, host before port', () => {
    expect(modifyUrl({ url: 'http://a/', set: { port: '2', host: 'b:1', href: 'https://c/x' } }).href).toBe(
      'https://b:2/x',
    )
  })

  it('ignores what a setter cannot use, as the WHATWG setters do', () => {
    expect(modifyUrl({ url: 'http://a:1/', set: { port: 'x' } }).port).toBe('1')
    expect(modifyUrl({ url: 'http://a/', set: { protocol: 'mailto' } }).protocol).toBe('http:')
    expect(modifyUrl({ url: 'mailto:x', set: { hostname: 'h', username: 'u' } }).href).toBe('mailto:x')
  })

  it('leaves the query text alone unless asked to edit it', () => {
    expect(modifyUrl({ url: 'http://a/?q=a%20b', strip_hash: true }).search).toBe('?q=a%20b')
    expect(modifyUrl({ url: 'http://a/?q=a%20b', sort_query: true }).search).toBe('?q=a+b')
    expect(modifyUrl({ url: 'http://a/?q=1', query: { delete: ['q'] } }).href).toBe('http://a/')
  })

  it('takes "__proto__" and "constructor" as ordinary query names', () => {
    const set = JSON.parse('{"__proto__":"x","constructor":["y"]}')
    const r = modifyUrl({ url: 'http://a/?constructor=0', query: { set } })
    expect(r.search).toBe('?constructor=y&__proto__=x')
    expect(Object.hasOwn(r.query_object, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>)['x']).toBeUndefined()
  })

  it('refuses an invalid url or href with the field at fault', () => {
    expect(() => modifyUrl({ url: 'nope' })).toThrowError(
      expect.objectContaining({
        code: 'ERR_INVALID_URL',
        details: expect.objectContaining({ field: 'url' }),
      }),
    )
    expect(() => modifyUrl({ url: 'http://a/', set: { href: 'http://a b/' } })).toThrowError(
      expect.objectContaining({
        code: 'ERR_INVALID_URL',
        details: expect.objectContaining({
          field: 'set.href',
          reason: 'forbidden_host_code_point',
          position: 8,
        }),
      }),
    )
  })
})

describe('applyQueryOps', () => {
  const pairs: QueryPairs = [
    ['a', '1'],
    ['b', '2'],
    ['a', '3'],
  ]

  it('set replaces a name at its first place, appends new names, and an empty array deletes', () => {
    expect(applyQueryOps(pairs, { set: { a: 'x' } }, false)).toEqual([
      ['a', 'x'],
      ['b', '2'],
    ])
    expect(
      applyQueryOps(
        pairs,
        {
          set: [
            ['c', 1],
            ['b', 'y'],
            ['c', 2],
          ],
        },
        false,
      ),
    ).toEqual([
      ['a', '1'],
      ['b', 'y'],
      ['a', '3'],
      ['c', '1'],
      ['c', '2'],
    ])
    expect(applyQueryOps(pairs, { set: { a: [] } }, false)).toEqual([['b', '2']])
  })

  it('runs delete, then set, then append', () => {
    expect(applyQueryOps(pairs, { delete: ['a'], set: { a: 's' }, append: { a: 'p' } }, false)).toEqual([
      ['b', '2'],
      ['a', 's'],
      ['a', 'p'],
    ])
  })

  it('sorts as URLSearchParams.sort does: stable, by UTF-16 code units', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'é', '\ud83d\ude00', '\uffff'), maxLength: 3 })
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { maxLength: 10 }), (input: QueryPairs) => {
        const reference = new URLSearchParams(input)
        reference.sort()
        expect(applyQueryOps(input, {}, true)).toEqual([...reference])
      }),
      { numRuns: 300 },
    )
  })
})
