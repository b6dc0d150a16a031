import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { URLSearchParams as WhatwgSearchParams, URL as WhatwgURL } from 'whatwg-url'
import { parseUrl } from '../../../src/ops/url/parse.ts'
import { parseQuery, parseUrlencoded } from '../../../src/ops/url/query.ts'

const SEED = { seed: 15_2026 }

// Pieces of query strings: good and bad percent-escapes, partial UTF-8, non-ASCII, lone surrogates, separators.
const queryPiece = fc.oneof(
  fc.constantFrom(
    '%',
    '%%',
    '%4',
    '%zz',
    '%FF',
    '%C3',
    '%C3%A9',
    '%E2%82',
    '%E2%82%AC',
    '%F0%9F%98%80',
    '%ED%A0%80',
  ),
  fc.constantFrom('&', '=', '+', '?', '#', ' ', 'a', 'Z', '0', 'Æ', 'щ', '€', '😀', '\uFEFF', '%EF%BB%BF'),
  fc.nat({ max: 0xffff }).map((n) => String.fromCharCode(n)),
  fc.nat({ max: 255 }).map((n) => `%${n.toString(16).padStart(2, '0')}`),
  fc.string({ maxLength: 3 }),
)
const queryString = fc.array(queryPiece, { maxLength: 24 }).map((parts) => parts.join(''))

describe('application/x-www-form-urlencoded per the URL standard (issue 15, item 4)', () => {
  it('keeps non-ASCII characters beside a bad escape in the same value', () => {
    expect(parseQuery({ query: 'a=Æ%FF&b=%25+щd%C3' }).pairs).toEqual([
      ['a', 'Æ�'],
      ['b', '% щd�'],
    ])
    expect(parseUrlencoded('x=€%E2%82&y=%F0%9F%98%80😀%&z=%EF%BB%BFbom')).toEqual([
      ['x', '€�'],
      ['y', '😀😀%'],
      ['z', '\uFEFFbom'],
    ])
    expect(parseUrlencoded('lone=\ud800%41')).toEqual([['lone', '\uFFFDA']])
  })

  // whatwg-url is the URL standard's reference implementation (jsdom's), independent of Node's own.
  it('agrees with whatwg-url URLSearchParams on random query strings with bad escapes', () => {
    fc.assert(
      fc.property(queryString, (query) => {
        expect(parseQuery({ query }).pairs).toEqual([...new WhatwgSearchParams(query)])
      }),
      { ...SEED, numRuns: 800 },
    )
  })

  it('url.parse agrees with whatwg-url on random URLs: components and query pairs', () => {
    const url = fc
      .tuple(
        fc.constantFrom(
          'https://example.com',
          'http://a.b:8080',
          'https://user:pw@xn--bcher-kva.example',
          'file:///tmp',
        ),
        fc.array(fc.constantFrom('/', 'a', '%2F', '..', 'é', ' ', '%'), { maxLength: 6 }),
        queryString,
        fc.option(queryString, { nil: undefined }),
      )
      .map(
        ([origin, path, query, hash]) =>
          `${origin}/${path.join('')}?${query}${hash === undefined ? '' : `#${hash}`}`,
      )
    fc.assert(
      fc.property(url, (text) => {
        let theirs: InstanceType<typeof WhatwgURL>
        try {
          theirs = new WhatwgURL(text)
        } catch {
          expect(() => parseUrl({ url: text })).toThrow()
          return
        }
        const ours = parseUrl({ url: text })
        expect(ours).toMatchObject({
          href: theirs.href,
          pathname: theirs.pathname,
          search: theirs.search,
          hash: theirs.hash,
          host: theirs.host,
        })
        expect(ours.query).toEqual([...theirs.searchParams])
      }),
      { ...SEED, numRuns: 400 },
    )
  })
})
