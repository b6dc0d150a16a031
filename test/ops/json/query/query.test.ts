import { describe, expect, it } from 'vitest'
import { parseJsonExact } from '../../../../src/ops/json/number.ts'
import { MAX_NESTING } from '../../../../src/ops/json/query/parse.ts'
import { queryJson } from '../../../../src/ops/json/query/query.ts'
import { queryBody } from '../../../../src/ops/json/query/schema.ts'
import {
  MAX_DOCUMENT_DEPTH,
  MAX_PATH_LENGTH,
  type QueryBounds,
} from '../../../../src/ops/json/query/types.ts'

const BOUNDS: QueryBounds = { maxResults: 1000, maxBytes: 1_000_000, maxSteps: 1_000_000 }

function refusal(run: () => unknown): { code: string; message: string; details?: Record<string, unknown> } {
  try {
    run()
  } catch (err) {
    return err as { code: string; message: string }
  }
  throw new Error('not refused')
}

const doc = (text: string) => parseJsonExact(text)

describe('json/query', () => {
  it('compares numbers by exact decimal value, never through a double', () => {
    const document = doc('[12345678901234567890, 12345678901234567891, 0.1, 0.10000000000000001, 1.0]')
    const big = queryJson({ document, path: '$[?@ > 12345678901234567890]' }, BOUNDS)
    expect(JSON.stringify(big.values)).toBe('[12345678901234567891]')
    const tenth = queryJson({ document, path: '$[?@ == 0.1]' }, BOUNDS)
    expect(tenth.paths).toEqual(['$[2]'])
    const one = queryJson({ document, path: '$[?@ == 1]' }, BOUNDS)
    expect(JSON.stringify(one.values)).toBe('[1.0]')
  })

  it('answers normalized paths, escaping names as RFC 9535 §2.7 says', () => {
    const result = queryJson({ document: { "it's": { 'a\nb': 1, '\u0001': 2 } }, path: '$.*.*' }, BOUNDS)
    expect(result.paths).toEqual(["$['it\\'s']['a\\nb']", "$['it\\'s']['\\u0001']"])
  })

  it('reads members named like Object.prototype members as members, and only own ones', () => {
    const document = doc('{"constructor": 1, "__proto__": 2, "a": {}}')
    expect(queryJson({ document, path: '$.constructor' }, BOUNDS).values).toEqual([1])
    expect(queryJson({ document, path: "$['__proto__']" }, BOUNDS).values).toEqual([2])
    expect(queryJson({ document, path: '$.a.toString' }, BOUNDS).values).toEqual([])
  })

  it('gives the position of what does not parse', () => {
    const err = refusal(() => queryJson({ document: {}, path: '$.a[?@.b == ]' }, BOUNDS))
    expect(err.code).toBe('ERR_INVALID_JSONPATH')
    expect(err.details).toEqual({ position: 12 })
  })

  it('answers LogicalFalse for a pattern that is not an I-Regexp, and runs patterns in linear time', () => {
    expect(queryJson({ document: ['a'], path: "$[?match(@, '(?=a)')]" }, BOUNDS).values).toEqual([])
    const started = performance.now()
    const long = `${'a'.repeat(100_000)}!`
    expect(queryJson({ document: [long], path: "$[?search(@, '(a+)+$')]" }, BOUNDS).values).toEqual([])
    expect(performance.now() - started).toBeLessThan(2000)
  })
})

describe('json/query bounds', () => {
  const items = Array.from({ length: 10 }, (_, i) => ({ i }))

  it('answers maxResults nodes and refuses one more', () => {
    expect(queryJson({ document: items, path: '$[0:3]' }, { ...BOUNDS, maxResults: 3 }).values).toHaveLength(
      3,
    )
    const err = refusal(() => queryJson({ document: items, path: '$[0:4]' }, { ...BOUNDS, maxResults: 3 }))
    expect(err).toMatchObject({
      code: 'ERR_RESULT_TOO_LARGE',
      details: { reason: 'results', max_results: 3 },
    })
  })

  it('answers maxBytes of values and refuses one byte less', () => {
    // "abc" weighs 8 (a value's slot) and "abcdefgh" 11 (its length and quotes): 19 in all
    const document = ['abc', 'abcdefgh']
    expect(queryJson({ document, path: '$[*]' }, { ...BOUNDS, maxBytes: 19 }).values).toHaveLength(2)
    const err = refusal(() => queryJson({ document, path: '$[*]' }, { ...BOUNDS, maxBytes: 18 }))
    expect(err).toMatchObject({ code: 'ERR_RESULT_TOO_LARGE', details: { reason: 'bytes' } })
  })

  it('visits maxSteps nodes and stops at one more with ERR_COMPUTE_LIMIT', () => {
    // $[*] visits the 10 items
    expect(queryJson({ document: items, path: '$[*]' }, { ...BOUNDS, maxSteps: 10 }).values).toHaveLength(10)
    expect(refusal(() => queryJson({ document: items, path: '$[*]' }, { ...BOUNDS, maxSteps: 9 })).code).toBe(
      'ERR_COMPUTE_LIMIT',
    )
  })

  it('stops a descendant explosion ($..*..*..*) and a descendant query per element at the step budget', () => {
    const deep = { a: Array.from({ length: 2000 }, (_, i) => ({ i, t: [i, [i, [i]]] })) }
    for (const path of ['$..*..*..*', '$.a[?count(@..*) > 0 && count($..*) > 0]..*..*']) {
      expect(refusal(() => queryJson({ document: deep, path }, { ...BOUNDS, maxSteps: 50_000 })).code).toBe(
        'ERR_COMPUTE_LIMIT',
      )
    }
  })

  it(`parses ${MAX_NESTING} nested parentheses and refuses one more`, () => {
    const nested = (n: number) => `$[?${'('.repeat(n - 1)}@${')'.repeat(n - 1)}]`
    expect(queryJson({ document: [1], path: nested(MAX_NESTING) }, BOUNDS).values).toEqual([1])
    expect(refusal(() => queryJson({ document: [1], path: nested(MAX_NESTING + 1) }, BOUNDS)).code).toBe(
      'ERR_INVALID_JSONPATH',
    )
  })

  it(`queries a document ${MAX_DOCUMENT_DEPTH} levels deep and refuses one deeper, parsed or not`, () => {
    // arrays in arrays, or objects in objects beside a scalar member
    const arrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`
    const objects = (levels: number) => `${'{"n":1,"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`
    // a plain value (JSON.parse), or a member of a body parsed losslessly
    const member = (text: string) => (doc(`{"document": ${text}}`) as { document: unknown }).document
    for (const nested of [arrays, objects]) {
      for (const read of [(text: string) => JSON.parse(text), member]) {
        expect(
          queryJson({ document: read(nested(MAX_DOCUMENT_DEPTH)), path: '$' }, BOUNDS).values,
        ).toHaveLength(1)
        const err = refusal(() =>
          queryJson({ document: read(nested(MAX_DOCUMENT_DEPTH + 1)), path: '$' }, BOUNDS),
        )
        expect(err.code).toBe('ERR_VALIDATION')
      }
    }
  })

  it(`takes a path of ${MAX_PATH_LENGTH} characters and refuses a longer one (schema)`, () => {
    const path = (n: number) => `$${'[0]'.repeat(Math.floor((n - 1) / 3))}`.padEnd(n, ' ')
    expect(queryBody.safeParse({ document: 1, path: path(MAX_PATH_LENGTH) }).success).toBe(true)
    expect(queryBody.safeParse({ document: 1, path: path(MAX_PATH_LENGTH + 1) }).success).toBe(false)
  })
})
