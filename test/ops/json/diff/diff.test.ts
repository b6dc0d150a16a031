import { afterAll, describe, expect, it } from 'vitest'
import { AppError } from '../../../../src/errors.ts'
import { jsonDiff, provenPatch } from '../../../../src/ops/json/diff/diff.ts'
import { MAX_DEPTH } from '../../../../src/ops/json/diff/keys.ts'
import type { Json } from '../../../../src/ops/json/diff/values.ts'
import { jsonEqual } from '../../../../src/ops/json/value.ts'
import { patched } from './helpers.ts'
import { lcg } from './large-helpers.ts'

const USERS_LEFT = {
  users: [
    { id: 1, name: 'Ada' },
    { id: 2, name: 'Bob' },
    { id: 3, name: 'Cy' },
  ],
}
const USERS_RIGHT = {
  users: [
    { id: 3, name: 'Cy' },
    { id: 1, name: 'Ada L.' },
    { id: 4, name: 'Di' },
  ],
}

function nested(depth: number, leaf: Json, asArray: boolean): Json {
  let value = leaf
  for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value }
  return value
}

function thrown(fn: () => unknown): AppError {
  try {
    fn()
  } catch (err) {
    if (err instanceof AppError) return err
    throw err
  }
  throw new Error('expected an AppError')
}

describe('jsonDiff vectors', () => {
  it('diffs objects into the jsondiffpatch delta format and RFC 6902', () => {
    const result = jsonDiff({
      left: { a: 1, b: 2, c: { d: [1, 2] } },
      right: { a: 1, b: 3, c: { d: [1, 2, 3] }, e: null },
      output: 'both',
    })
    expect(result).toEqual({
      equal: false,
      delta: { b: [2, 3], c: { d: { _t: 'a', 2: [3] } }, e: [null] },
      json_patch: [
        { op: 'replace', path: '/b', value: 3 },
        { op: 'add', path: '/c/d/2', value: 3 },
        { op: 'add', path: '/e', value: null },
      ],
      stats: { added: 2, removed: 0, changed: 1, moved: 0 },
    })
  })

  it('matches array items by array_key: moves, nested edits, removals and additions', () => {
    const result = jsonDiff({ left: USERS_LEFT, right: USERS_RIGHT, array_key: 'id', output: 'both' })
    expect(result.delta).toEqual({
      users: {
        _t: 'a',
        _1: [{ id: 2, name: 'Bob' }, 0, 0],
        _2: ['', 0, 3],
        1: { name: ['Ada', 'Ada L.'] },
        2: [{ id: 4, name: 'Di' }],
      },
    })
    expect(result.json_patch).toEqual([
      { op: 'remove', path: '/users/1' },
      { op: 'move', from: '/users/1', path: '/users/0' },
      { op: 'add', path: '/users/2', value: { id: 4, name: 'Di' } },
      { op: 'replace', path: '/users/1/name', value: 'Ada L.' },
    ])
    expect(result.stats).toEqual({ added: 1, removed: 1, changed: 1, moved: 1 })
  })

  it('without array_key, matches array items by whole content', () => {
    const result = jsonDiff({ left: USERS_LEFT, right: USERS_RIGHT, output: 'both' })
    expect(result.stats).toEqual({ added: 2, removed: 2, changed: 0, moved: 0 })
    expect(patched(USERS_LEFT, result.json_patch!)).toEqual(USERS_RIGHT)
  })

  it('keeps ids of different JSON types apart and falls back to content for items without the key', () => {
    const left = [{ id: 1 }, { id: '1' }, { x: 1 }]
    const right = [{ id: '1' }, { x: 1 }, { id: 1, y: 2 }]
    const result = jsonDiff({ left, right, array_key: 'id', output: 'both' })
    expect(result.delta).toEqual({ _t: 'a', _0: ['', 2, 3], 2: { y: [2] } })
    expect(result.json_patch).toEqual([
      { op: 'move', from: '/0', path: '/2' },
      { op: 'add', path: '/2/y', value: 2 },
    ])
  })

  it('reverses an array with one move per moved item (jsondiffpatch issue #380)', () => {
    const left = ['first', 'second', 'third', 'fourth', 'fifth']
    const right = ['fifth', 'fourth', 'third', 'second', 'first']
    const result = jsonDiff({ left, right, output: 'both' })
    expect(result.delta).toEqual({ _t: 'a', _1: ['', 3, 3], _2: ['', 2, 3], _3: ['', 1, 3], _4: ['', 0, 3] })
    expect(result.json_patch).toEqual([
      { op: 'move', from: '/4', path: '/0' },
      { op: 'move', from: '/4', path: '/1' },
      { op: 'move', from: '/4', path: '/2' },
      { op: 'move', from: '/4', path: '/3' },
    ])
    expect(patched(left, result.json_patch!)).toEqual(right)
  })

  it('reports reordering as removal plus addition when detect_moves is false', () => {
    const result = jsonDiff({
      left: ['a', 'b', 'c'],
      right: ['c', 'a', 'b'],
      detect_moves: false,
      output: 'both',
    })
    expect(result.delta).toEqual({ _t: 'a', _2: ['c', 0, 0], 0: ['c'] })
    expect(result.json_patch).toEqual([
      { op: 'remove', path: '/2' },
      { op: 'add', path: '/0', value: 'c' },
    ])
    expect(result.stats).toEqual({ added: 1, removed: 1, changed: 0, moved: 0 })
  })

  it('replaces long strings whole (no text diffs) and replaces the root on a type change', () => {
    const before = 'lorem ipsum '.repeat(20)
    const after = before + 'dolor'
    expect(jsonDiff({ left: { s: before }, right: { s: after }, output: 'both' })).toMatchObject({
      delta: { s: [before, after] },
      json_patch: [{ op: 'replace', path: '/s', value: after }],
    })
    expect(jsonDiff({ left: [1], right: { a: 1 }, output: 'both' })).toMatchObject({
      delta: [[1], { a: 1 }],
      json_patch: [{ op: 'replace', path: '', value: { a: 1 } }],
      stats: { changed: 1 },
    })
  })

  it('answers equal with an empty delta and patch, whatever the key order', () => {
    expect(
      jsonDiff({ left: { a: [1, { b: 2, c: 3 }] }, right: { a: [1, { c: 3, b: 2 }] }, output: 'both' }),
    ).toEqual({
      equal: true,
      delta: {},
      json_patch: [],
      stats: { added: 0, removed: 0, changed: 0, moved: 0 },
    })
  })

  it('returns the delta by default, the patch on request, or both', () => {
    const args = { left: { a: 1 }, right: { a: 2 } }
    expect(Object.keys(jsonDiff(args)).sort()).toEqual(['delta', 'equal', 'stats'])
    expect(Object.keys(jsonDiff({ ...args, output: 'json_patch' })).sort()).toEqual([
      'equal',
      'json_patch',
      'stats',
    ])
    expect(Object.keys(jsonDiff({ ...args, output: 'both' })).sort()).toEqual([
      'delta',
      'equal',
      'json_patch',
      'stats',
    ])
  })

  it('escapes "/" and "~" in patch paths (RFC 6901)', () => {
    const result = jsonDiff({
      left: { 'a/b': 1, 'm~n': 1 },
      right: { 'a/b': 2, 'm~n': 2 },
      output: 'json_patch',
    })
    expect(result.json_patch).toEqual([
      { op: 'replace', path: '/a~1b', value: 2 },
      { op: 'replace', path: '/m~0n', value: 2 },
    ])
  })
})

describe('jsonDiff with prototype-named keys', () => {
  const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort()
  afterAll(() => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('treats "__proto__", "constructor" and "toString" as ordinary keys', () => {
    const left = JSON.parse('{"__proto__": {"x": 1}, "constructor": {"prototype": 1}, "a": 1}')
    const right = JSON.parse('{"__proto__": {"x": 2, "polluted": true}, "toString": 5, "b": 2}')
    const result = jsonDiff({ left, right, output: 'both' })
    expect(JSON.stringify(result.delta)).toBe(
      '{"__proto__":{"x":[1,2],"polluted":[true]},"constructor":[{"prototype":1},0,0],"a":[1,0,0],"toString":[5],"b":[2]}',
    )
    expect(Object.getPrototypeOf(result.delta)).toBe(Object.prototype)
    expect(result.json_patch).toEqual([
      { op: 'replace', path: '/__proto__/x', value: 2 },
      { op: 'add', path: '/__proto__/polluted', value: true },
      { op: 'remove', path: '/constructor' },
      { op: 'remove', path: '/a' },
      { op: 'add', path: '/toString', value: 5 },
      { op: 'add', path: '/b', value: 2 },
    ])
    expect(result.stats).toEqual({ added: 3, removed: 2, changed: 1, moved: 0 })
    expect(JSON.stringify(patched(left, result.json_patch!))).toBe(JSON.stringify(right))
  })

  it('sees a "constructor" key added to an empty object (jsondiffpatch alone misses it)', () => {
    expect(jsonDiff({ left: {}, right: { constructor: 1 }, output: 'both' })).toMatchObject({
      equal: false,
      delta: { constructor: [1] },
      json_patch: [{ op: 'add', path: '/constructor', value: 1 }],
    })
  })

  it('matches array items by a prototype-named array_key', () => {
    const left = JSON.parse('[{"__proto__": 1, "v": 1}, {"__proto__": 2, "v": 2}]')
    const right = JSON.parse('[{"__proto__": 2, "v": 2}, {"__proto__": 1, "v": 3}]')
    const result = jsonDiff({ left, right, array_key: '__proto__', output: 'both' })
    expect(result.stats).toEqual({ added: 0, removed: 0, changed: 1, moved: 1 })
    expect(JSON.stringify(patched(left, result.json_patch!))).toBe(JSON.stringify(right))
  })

  it('keeps keys that start with the escape character apart from escaped ones', () => {
    const left = JSON.parse('{"\\u0000constructor": 1, "constructor": 2}')
    const right = JSON.parse('{"\\u0000constructor": 3, "constructor": 2}')
    expect(jsonDiff({ left, right, output: 'json_patch' }).json_patch).toEqual([
      { op: 'replace', path: '/\u0000constructor', value: 3 },
    ])
  })
})

describe('jsonDiff limits', () => {
  it(`diffs documents nested ${MAX_DEPTH} levels deep`, () => {
    for (const asArray of [false, true]) {
      const left = nested(MAX_DEPTH, 1, asArray)
      const right = nested(MAX_DEPTH, 2, asArray)
      const result = jsonDiff({ left, right, output: 'both' })
      expect(result.equal).toBe(false)
      expect(jsonEqual(patched(left, result.json_patch!), right)).toBe(true)
    }
  })

  it('refuses deeper documents with ERR_VALIDATION naming the side, 10,000 levels included', () => {
    const err = thrown(() => jsonDiff({ left: 1, right: nested(MAX_DEPTH + 1, 1, true) }))
    expect(err.code).toBe('ERR_VALIDATION')
    expect(err.details).toEqual({
      issues: [{ path: 'right', message: `nesting deeper than ${MAX_DEPTH} levels is not supported` }],
    })
    const deep = thrown(() => jsonDiff({ left: nested(10_000, 1, false), right: {} }))
    expect(deep.details).toMatchObject({ issues: [{ path: 'left' }] })
  })

  it('diffs 2,000 records with 5% scattered edits, moves included', () => {
    const random = lcg(7)
    const left = Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `item ${i}`, v: i % 7 }))
    const right = structuredClone(left)
    // 100 distinct records: 25 edited, 25 removed, 25 moved; then 25 new ones inserted
    const picked = left
      .map((r) => [random(), r.id] as const)
      .sort((a, b) => a[0] - b[0])
      .slice(0, 100)
    const at = (id: number) => right.findIndex((r) => r.id === id)
    picked.forEach(([, id], n) => {
      if (n < 25) right[at(id)]!.v = -1
      else if (n < 50) right.splice(at(id), 1)
      else if (n < 75) right.splice(Math.floor(random() * right.length), 0, ...right.splice(at(id), 1))
    })
    for (let n = 0; n < 25; n++)
      right.splice(Math.floor(random() * right.length), 0, { id: 5000 + n, name: 'new', v: 0 })
    const result = jsonDiff({
      left: { items: left },
      right: { items: right },
      array_key: 'id',
      output: 'both',
    })
    expect(result.stats).toEqual({ added: 25, removed: 25, changed: 25, moved: 25 })
    expect(jsonEqual(patched({ items: left }, result.json_patch!), { items: right })).toBe(true)
  })

  it('turns a shuffled 1,000-item array into at most one move per moved item', () => {
    const random = lcg(1000)
    const left = Array.from({ length: 1000 }, (_, i) => i)
    const right = left
      .map((v) => [random(), v] as const)
      .sort((a, b) => a[0] - b[0])
      .map(([, v]) => v)
    const result = jsonDiff({ left, right, output: 'both' })
    const ops = result.json_patch!
    expect(ops.every((op) => op.op === 'move')).toBe(true)
    expect(ops.length).toBeLessThanOrEqual(result.stats.moved)
    expect(patched(left, ops)).toEqual(right)
  })
})

describe('provenPatch', () => {
  it('falls back to a coarse patch when the delta does not reproduce right', () => {
    const left = { list: [1, 2, 3], keep: true }
    const right = { list: [3, 2, 1], keep: true }
    const wrong = { list: { _t: 'a', 0: [9] } }
    const ops = provenPatch(wrong as never, left, right)
    // equal-length arrays are compared index by index
    expect(ops).toEqual([
      { op: 'replace', path: '/list/0', value: 3 },
      { op: 'replace', path: '/list/2', value: 1 },
    ])
  })

  it('falls back when the delta does not even fit the document', () => {
    const ops = provenPatch({ a: { b: [1, 2] } } as never, { a: [1] }, { a: [2, 3] })
    expect(ops).toEqual([{ op: 'replace', path: '/a', value: [2, 3] }])
  })
})
