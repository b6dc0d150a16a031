import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyJsonPatch, COPY_FLOOR, MAX_PATCH_DEPTH } from '../../../../src/ops/json/patch/patch.ts'
import { formatPointer, parsePointer } from '../../../../src/ops/json/pointer.ts'
import { jsonEqual } from '../../../../src/ops/json/value.ts'

function patch(document: unknown, ops: unknown[]): unknown {
  return applyJsonPatch({ document, patch: ops }).result
}

// CPU time of this thread (where the op runs), in ms: a loaded machine stretches wall time, not this. The
// wall-clock bound only catches a hang.
function timed<T>(run: () => T): { value: T; cpuMs: number } {
  const wall = performance.now()
  const cpu = process.threadCpuUsage()
  const value = run()
  const used = process.threadCpuUsage(cpu)
  expect(performance.now() - wall).toBeLessThan(10_000)
  return { value, cpuMs: (used.user + used.system) / 1000 }
}

function refusal(document: unknown, ops: unknown[]): { code: string; details: Record<string, unknown> } {
  try {
    applyJsonPatch({ document, patch: ops })
  } catch (err) {
    return err as { code: string; details: Record<string, unknown> }
  }
  throw new Error('patch applied')
}

describe('json patch: RFC 6902 operations', () => {
  it('applies the RFC 6902 appendix A examples', () => {
    expect(patch({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }])).toEqual({
      foo: 'bar',
      baz: 'qux',
    })
    expect(patch({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }])).toEqual({
      foo: ['bar', 'qux', 'baz'],
    })
    expect(patch({ foo: [1, 2] }, [{ op: 'add', path: '/foo/-', value: 3 }])).toEqual({ foo: [1, 2, 3] })
    expect(patch({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }])).toEqual({ foo: 'bar' })
    expect(
      patch({ foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } }, [
        { op: 'move', from: '/foo/waldo', path: '/qux/thud' },
      ]),
    ).toEqual({ foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } })
    expect(
      patch({ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }]),
    ).toEqual({
      foo: ['all', 'cows', 'eat', 'grass'],
    })
    expect(patch({ a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }])).toEqual({
      a: { b: 1 },
      c: { b: 1 },
    })
    expect(
      patch({ '/': 9, '~1': 10 }, [
        { op: 'test', path: '/~01', value: 10 },
        { op: 'replace', path: '/~1', value: 0 },
      ]),
    ).toEqual({
      '/': 0,
      '~1': 10,
    })
  })

  it('replaces or adds the whole document at ""', () => {
    expect(patch({ a: 1 }, [{ op: 'replace', path: '', value: [1] }])).toEqual([1])
    expect(patch(5, [{ op: 'add', path: '', value: { b: 2 } }])).toEqual({ b: 2 })
    expect(refusal({ a: 1 }, [{ op: 'remove', path: '' }])).toMatchObject({
      code: 'ERR_INVALID_PATCH',
      details: { index: 0, op: 'remove', path: '', reason: 'the whole document cannot be removed' },
    })
  })

  it('test compares structurally: key order is irrelevant, numbers by value', () => {
    expect(
      patch({ a: { x: 1, y: [1, { z: null }] } }, [
        { op: 'test', path: '/a', value: { y: [1.0, { z: null }], x: 1 } },
      ]),
    ).toEqual({ a: { x: 1, y: [1, { z: null }] } })
    for (const value of [{ x: 1 }, { x: 1, y: [1, { z: null }], w: 0 }, [1], '1', { x: 1, y: [1, {}] }]) {
      expect(refusal({ a: { x: 1, y: [1, { z: null }] } }, [{ op: 'test', path: '/a', value }]).code).toBe(
        'ERR_PATCH_TEST_FAILED',
      )
    }
  })

  it('a failed test names the operation and its path', () => {
    expect(
      refusal({ a: 1 }, [
        { op: 'add', path: '/b', value: 2 },
        { op: 'test', path: '/a', value: 2 },
      ]),
    ).toMatchObject({
      code: 'ERR_PATCH_TEST_FAILED',
      details: { index: 1, path: '/a', reason: 'the value differs' },
    })
    expect(refusal({ a: 1 }, [{ op: 'test', path: '/b', value: 1 }]).details).toEqual({
      index: 0,
      path: '/b',
      reason: 'nothing exists at that path',
    })
  })

  it('refuses bad operations with their index and a reason', () => {
    const cases: [unknown, Record<string, unknown>][] = [
      ['add', { index: 1, reason: 'an operation must be an object' }],
      [{ path: '/a' }, { index: 1, reason: '"op" is required' }],
      [
        { op: 'get', path: '/a' },
        { index: 1, reason: '"op" must be one of add, remove, replace, move, copy, test' },
      ],
      [
        { op: 'add', value: 1 },
        { index: 1, op: 'add', reason: '"path" is required' },
      ],
      [
        { op: 'add', path: 3, value: 1 },
        { index: 1, op: 'add', reason: '"path" must be a JSON Pointer string' },
      ],
      [
        { op: 'add', path: 'a', value: 1 },
        { index: 1, op: 'add', path: 'a', reason: '"path": a JSON Pointer is "" or starts with "/"' },
      ],
      [
        { op: 'add', path: '/~2', value: 1 },
        { index: 1, op: 'add', path: '/~2', reason: '"path": "~" must be followed by 0 or 1 (in "~2")' },
      ],
      [
        { op: 'add', path: '/a' },
        { index: 1, op: 'add', path: '/a', reason: '"value" is required' },
      ],
      [
        { op: 'copy', path: '/a' },
        { index: 1, op: 'copy', path: '/a', reason: '"from" is required' },
      ],
      [
        { op: 'add', path: '/x/y', value: 1 },
        { index: 1, op: 'add', path: '/x/y', reason: '/x does not exist' },
      ],
      [
        { op: 'add', path: '/arr/3', value: 1 },
        { index: 1, reason: 'index 3 is past the end of the array (length 2)' },
      ],
      [
        { op: 'add', path: '/arr/01', value: 1 },
        { index: 1, reason: '"01" is not an array index (digits, no leading zeros, or "-")' },
      ],
      [
        { op: 'replace', path: '/arr/-', value: 1 },
        { index: 1, reason: '/arr/- does not exist' },
      ],
      [
        { op: 'remove', path: '/arr/2' },
        { index: 1, reason: '/arr/2 does not exist' },
      ],
      [
        { op: 'add', path: '/s/x', value: 1 },
        { index: 1, reason: '/s is a string' },
      ],
      [
        { op: 'move', from: '/o', path: '/o/p' },
        { index: 1, op: 'move', path: '/o/p', from: '/o', reason: 'a value cannot be moved into itself' },
      ],
      [
        { op: 'move', from: '/nope', path: '/q' },
        { index: 1, from: '/nope', reason: '/nope does not exist' },
      ],
    ]
    const document = { arr: [1, 2], s: 'str', o: { p: 1 } }
    for (const [op, details] of cases) {
      const err = refusal(document, [{ op: 'test', path: '/s', value: 'str' }, op])
      expect(err.code).toBe('ERR_INVALID_PATCH')
      expect(err.details).toMatchObject(details)
    }
  })

  it('checks every operation before applying any, so a malformed one wins over an earlier failing test', () => {
    expect(refusal({}, [{ op: 'test', path: '/a', value: 1 }, { op: 'nope' }]).code).toBe('ERR_INVALID_PATCH')
  })

  it('moving a value onto itself is a no-op that keeps key order', () => {
    expect(Object.keys(patch({ a: 1, b: 2 }, [{ op: 'move', from: '/a', path: '/a' }]) as object)).toEqual([
      'a',
      'b',
    ])
  })

  it('copies are independent of their source', () => {
    expect(
      patch({ a: { b: [1] } }, [
        { op: 'copy', from: '/a', path: '/c' },
        { op: 'add', path: '/c/b/-', value: 2 },
      ]),
    ).toEqual({ a: { b: [1] }, c: { b: [1, 2] } })
  })

  it('ignores members other than op/path/from/value', () => {
    expect(patch({}, [{ op: 'add', path: '/a', value: 1, from: 5, extra: true }])).toEqual({ a: 1 })
  })
})

describe('json patch: safety', () => {
  it('never touches Object.prototype: "__proto__" and "constructor" are plain keys', () => {
    const document = JSON.parse('{"__proto__": {"x": 1}, "arr": []}')
    const result = patch(document, [
      { op: 'add', path: '/__proto__/polluted', value: 'yes' },
      { op: 'add', path: '/constructor', value: { prototype: {} } },
      { op: 'add', path: '/constructor/prototype/polluted', value: 'yes' },
      { op: 'copy', from: '/__proto__', path: '/__proto__/copy' },
    ]) as Record<string, unknown>
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.prototype).not.toHaveProperty('polluted')
    expect(Object.hasOwn(result, '__proto__')).toBe(true)
    expect(JSON.parse(JSON.stringify(result))).toEqual(
      JSON.parse(
        '{"__proto__":{"x":1,"polluted":"yes","copy":{"x":1,"polluted":"yes"}},"arr":[],"constructor":{"prototype":{"polluted":"yes"}}}',
      ),
    )
  })

  it('does not follow inherited properties', () => {
    for (const path of [
      '/__proto__/polluted',
      '/constructor/prototype/polluted',
      '/toString/x',
      '/arr/length',
    ]) {
      expect(refusal({ arr: [] }, [{ op: 'add', path, value: 1 }]).code).toBe('ERR_INVALID_PATCH')
    }
    expect(refusal({}, [{ op: 'test', path: '/constructor', value: {} }]).code).toBe('ERR_PATCH_TEST_FAILED')
    expect(refusal({}, [{ op: 'remove', path: '/toString' }]).code).toBe('ERR_INVALID_PATCH')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('never mutates its input, even when a later operation fails', () => {
    const document = { a: [1, 2], b: { c: 1 } }
    const ops = [
      { op: 'add', path: '/a/-', value: { d: 1 } },
      { op: 'remove', path: '/b/c' },
      { op: 'add', path: '/a/2/e', value: 2 },
    ]
    const before = structuredClone({ document, ops })
    expect(patch(document, ops)).toEqual({ a: [1, 2, { d: 1, e: 2 }], b: {} })
    expect(refusal(document, [...ops, { op: 'test', path: '/a', value: [] }]).code).toBe(
      'ERR_PATCH_TEST_FAILED',
    )
    expect({ document, ops }).toEqual(before)
  })

  it(`refuses documents and results nested deeper than ${MAX_PATCH_DEPTH} levels`, () => {
    const deep = (n: number) => {
      let v: unknown = 0
      for (let i = 0; i < n; i++) v = [v]
      return v
    }
    expect(patch(deep(MAX_PATCH_DEPTH), [])).toEqual(deep(MAX_PATCH_DEPTH))
    expect(refusal(deep(100_000), [])).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'document', message: `nests deeper than ${MAX_PATCH_DEPTH} levels` }] },
    })
    expect(refusal({ a: 1 }, [{ op: 'add', path: '/b', value: deep(MAX_PATCH_DEPTH) }]).details.reason).toBe(
      `the result would nest deeper than ${MAX_PATCH_DEPTH} levels`,
    )
    // a test value is compared, never stored: any depth
    expect(refusal([], [{ op: 'test', path: '', value: deep(100_000) }]).code).toBe('ERR_PATCH_TEST_FAILED')
  })

  it('refuses copies that would blow the document up', () => {
    const doubling = Array.from({ length: 40 }, () => ({ op: 'copy', from: '/a', path: '/a/-' }))
    expect(refusal({ a: [1] }, doubling)).toMatchObject({
      code: 'ERR_COMPUTE_LIMIT',
      details: { reason: 'copied_bytes', limit: COPY_FLOOR },
    })
  })

  it('counts copied bytes, not values: one long string copied many times is refused', () => {
    // 29 KB of patch asking for 29 MB of result: 1,000 copies of one 29 KB string value
    const copies = Array.from({ length: 1000 }, () => ({ op: 'copy', from: '/s', path: '/a/-' }))
    const { value, cpuMs } = timed(() => refusal({ s: 'x'.repeat(29_000), a: [] }, copies))
    expect(value).toMatchObject({
      code: 'ERR_COMPUTE_LIMIT',
      details: { reason: 'copied_bytes', limit: expect.any(Number) },
    })
    expect(cpuMs).toBeLessThan(250)
  })

  it('allows copies up to 16x the request, and stops a doubling copy as soon as it passes the budget', () => {
    const big = Array.from({ length: 2000 }, (_, i) => i)
    const fine = patch({ a: big }, [{ op: 'copy', from: '/a', path: '/b' }]) as { b: number[] }
    expect(fine.b).toHaveLength(2000)
    const doubling = Array.from({ length: 30 }, () => ({ op: 'copy', from: '/a', path: '/a/-' }))
    const square = [
      [0, 0],
      [0, 0],
    ]
    const { value, cpuMs } = timed(() => refusal({ a: square }, doubling))
    expect(value.details).toMatchObject({ reason: 'copied_bytes' })
    expect(cpuMs).toBeLessThan(250)
  })
})

describe('json pointer', () => {
  it('parses RFC 6901 escapes in the right order', () => {
    expect(parsePointer('/a~1b/m~0n/~01/')).toEqual(['a/b', 'm~n', '~1', ''])
    expect(parsePointer('')).toEqual([])
    expect(formatPointer(['a/b', 'm~n', '~1', ''])).toBe('/a~1b/m~0n/~01/')
  })

  it('round-trips any tokens', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', '/', '~', '0', '1', '-') })), (tokens) => {
        expect(parsePointer(formatPointer(tokens))).toEqual(tokens)
      }),
    )
  })
})

describe('json patch properties', () => {
  const doc = fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 })

  it('add then remove of a new key gives the document back; replace then test succeeds', () => {
    fc.assert(
      fc.property(doc, fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 3 }), (document, key, value) => {
        fc.pre(!Object.hasOwn(document, key))
        const path = formatPointer([key])
        expect(
          jsonEqual(
            patch(document, [
              { op: 'add', path, value },
              { op: 'remove', path },
            ]),
            document,
          ),
        ).toBe(true)
        const replaced = patch(document, [
          { op: 'add', path, value: null },
          { op: 'replace', path, value },
          { op: 'test', path, value },
        ]) as Record<string, unknown>
        expect(jsonEqual(replaced[key], value)).toBe(true)
      }),
      { numRuns: 200 },
    )
  })

  it('every member of any document tests equal to itself, and the input is left as it was', () => {
    fc.assert(
      fc.property(doc, (document) => {
        const before = structuredClone(document)
        const ops = Object.keys(document).map((k) => ({
          op: 'test',
          path: formatPointer([k]),
          value: document[k],
        }))
        expect(jsonEqual(patch(document, ops), document)).toBe(true)
        expect(document).toEqual(before)
      }),
      { numRuns: 200 },
    )
  })
})
