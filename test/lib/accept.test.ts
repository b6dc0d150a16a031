import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { answerFormat } from '../../src/lib/accept.ts'

// RFC 9110 §12.5.1 between the two answers of a binary endpoint (docs/api.md, "Transport and envelope")
describe('answerFormat (Accept between JSON and raw bytes)', () => {
  it.each([
    // no Accept, or anything: JSON
    [undefined, 'json'],
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['application/json', 'json'],
    ['application/octet-stream', 'octets'],
    ['APPLICATION/Octet-Stream', 'octets'],
    // the /docs page's header and the cases: q decides, then specificity, then the client's order
    ['application/json, application/octet-stream', 'json'],
    ['application/octet-stream;q=0.5, application/json', 'json'],
    ['application/octet-stream, application/json', 'octets'],
    ['application/json;q=0.4, application/octet-stream;q=0.9', 'octets'],
    ['application/octet-stream;q=0.5, */*', 'json'],
    ['*/*;q=0.1, application/octet-stream', 'octets'],
    // the most specific range sets a type's q: */* does not lift an excluded type
    ['application/json;q=0, */*', 'octets'],
    ['application/*;q=0, application/octet-stream', 'octets'],
    ['*/*, application/octet-stream;q=0', 'json'],
    // a browser's navigation header: */* at q=0.8 reaches both, JSON on the tie
    ['text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8', 'json'],
    // JSON is sent as charset=utf-8: a range naming it matches, another charset does not
    ['application/json; charset=UTF-8', 'json'],
    // neither acceptable: 406
    ['text/html', undefined],
    ['application/json;q=0, application/octet-stream;q=0', undefined],
    ['application/json;charset=latin1', undefined],
    ['', undefined],
    ['nonsense', undefined],
  ] as const)('Accept %j → %s', (accept, expected) => {
    expect(answerFormat(accept)).toBe(expected)
  })

  it("q-values decide between the two named types; on equal q, the client's order", () => {
    const q = fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000)
    fc.assert(
      fc.property(q, q, fc.boolean(), (jq, oq, jsonFirst) => {
        const json = `application/json;q=${jq}`
        const octets = `application/octet-stream;q=${oq}`
        const accept = jsonFirst ? `${json}, ${octets}` : `${octets}, ${json}`
        const expected =
          jq === 0 && oq === 0
            ? undefined
            : jq > oq
              ? 'json'
              : oq > jq
                ? 'octets'
                : jsonFirst
                  ? 'json'
                  : 'octets'
        expect(answerFormat(accept)).toBe(expected)
      }),
    )
  })

  it('never throws, whatever the header', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (accept) => {
        const r = answerFormat(accept)
        expect(r === undefined || r === 'json' || r === 'octets').toBe(true)
      }),
      { numRuns: 2000 },
    )
  })
})
