import fc from 'fast-check'
import { create, type Delta, patch as jdpPatch } from 'jsondiffpatch'
import { describe, expect, it } from 'vitest'
import { matchArrays } from '../../../../src/ops/json/diff/array-match.ts'
import { jsonDiff } from '../../../../src/ops/json/diff/diff.ts'
import { ItemHasher } from '../../../../src/ops/json/diff/hash.ts'
import { deltaToJsonPatch } from '../../../../src/ops/json/diff/patch-format.ts'
import { deltaStats } from '../../../../src/ops/json/diff/stats.ts'
import type { Json } from '../../../../src/ops/json/diff/values.ts'
import { jsonEqual } from '../../../../src/ops/json/value.ts'
import { patched, viaJson } from './helpers.ts'

function lcsLength(a: readonly number[], b: readonly number[]): number {
  let row = new Array<number>(b.length + 1).fill(0)
  for (let i = 1; i <= a.length; i++) {
    const next = [0]
    for (let j = 1; j <= b.length; j++) {
      next[j] = a[i - 1] === b[j - 1] ? row[j - 1]! + 1 : Math.max(row[j]!, next[j - 1]!)
    }
    row = next
  }
  return row[b.length]!
}

function matched(before: number[], after: number[]) {
  const match = matchArrays(Float64Array.from(before), Float64Array.from(after))
  const kept: [number, number][] = []
  before.forEach((_, i) => {
    if (match.kept[i] === 1) kept.push([i, match.oldTo[i]!])
  })
  return { ...match, kept: kept }
}

// every outcome a client can see: the returned patch, the patch converted from the delta (without
// the fallback), and jsondiffpatch's own patch()
function expectCorrect(left: Json, right: Json, options: { array_key?: string; detect_moves?: boolean }) {
  const result = jsonDiff({ left, right, ...options, output: 'both' })
  expect(jsonEqual(patched(left, result.json_patch!), right)).toBe(true)
  if (result.equal) return result
  const delta = result.delta as Delta
  expect(jsonEqual(patched(left, deltaToJsonPatch(delta, left)), right)).toBe(true)
  expect(jsonEqual(jdpPatch(structuredClone(left), delta) as Json, right)).toBe(true)
  return result
}

const smallInts = fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 14 })
const options = fc.record({ array_key: fc.constantFrom(undefined, 'id'), detect_moves: fc.boolean() })

describe('array diff vectors', () => {
  it('aligns runs of duplicates instead of moving them', () => {
    const result = jsonDiff({
      left: ['x', 0, 1, 0, 1, 0, 1, 'y'],
      right: ['z', 1, 0, 1, 0, 1, 'w'],
      output: 'both',
    })
    expect(result.delta).toEqual({
      _t: 'a',
      _0: ['x', 0, 0],
      _1: [0, 0, 0],
      _7: ['y', 0, 0],
      0: ['z'],
      6: ['w'],
    })
    expect(result.stats).toEqual({ added: 2, removed: 3, changed: 0, moved: 0 })
    expect(jsonDiff({ left: ['a', 'a', 'b'], right: ['b', 'a', 'a'] }).delta).toEqual({
      _t: 'a',
      _2: ['', 0, 3],
    })
  })

  it('moves the smaller side of a reordering, one move per item', () => {
    const left = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    const right = [0, 1, 7, 8, 2, 3, 4, 5, 6, 9]
    const result = jsonDiff({ left, right, output: 'both' })
    expect(result.delta).toEqual({ _t: 'a', _7: ['', 2, 3], _8: ['', 3, 3] })
    expect(result.json_patch).toEqual([
      { op: 'move', from: '/7', path: '/2' },
      { op: 'move', from: '/8', path: '/3' },
    ])
  })

  it('diffs a moved keyed record at its new index, and matches records without the key by content', () => {
    const left = [{ id: 1, v: 1 }, { v: 2 }, { id: 2, v: 3 }]
    const right = [{ v: 2 }, { id: 2, v: 4 }, { id: 1, v: 1, w: true }]
    const result = jsonDiff({ left, right, array_key: 'id', output: 'both' })
    expect(result.delta).toEqual({ _t: 'a', _0: ['', 2, 3], 1: { v: [3, 4] }, 2: { w: [true] } })
    expect(result.json_patch).toEqual([
      { op: 'move', from: '/0', path: '/2' },
      { op: 'replace', path: '/1/v', value: 4 },
      { op: 'add', path: '/2/w', value: true },
    ])
    expect(result.stats).toEqual({ added: 1, removed: 0, changed: 1, moved: 1 })
  })

  it('descends into arrays inside keyed records; arrays inside arrays are matched by content', () => {
    expect(
      jsonDiff({
        left: [{ id: 1, list: [1, 2, 3] }],
        right: [{ id: 1, list: [0, 1, 2, 3] }],
        array_key: 'id',
      }).delta,
    ).toEqual({
      _t: 'a',
      0: { list: { _t: 'a', 0: [0] } },
    })
    expect(jsonDiff({ left: [[1, 2], [3]], right: [[1, 2, 0], [3]] }).delta).toEqual({
      _t: 'a',
      _0: [[1, 2], 0, 0],
      0: [[1, 2, 0]],
    })
  })

  it('keeps equal items at both ends out of the diff, whatever they contain', () => {
    const big = Array.from({ length: 300 }, (_, i) => ({ id: i, nested: { list: [i, i + 1] } }))
    const left = [...big, 'a', ...big]
    const right = viaJson([...big, 'b', ...big])
    expect(jsonDiff({ left, right, array_key: 'id' }).delta).toEqual({
      _t: 'a',
      _300: ['a', 0, 0],
      300: ['b'],
    })
  })
})

describe('array matching', () => {
  it('pairs equal identities one to one, keeps an increasing run, and leaves no possible pair unmade', () => {
    fc.assert(
      fc.property(smallInts, smallInts, (before, after) => {
        const { oldTo, newFrom, kept } = matched(before, after)
        oldTo.forEach((j, i) => {
          if (j >= 0) expect([newFrom[j], after[j]]).toEqual([i, before[i]])
        })
        kept.forEach(([i, j], k) => {
          if (k > 0) expect(i > kept[k - 1]![0] && j > kept[k - 1]![1]).toBe(true)
        })
        const leftOver = new Set(before.filter((_, i) => oldTo[i] === -1))
        expect(after.some((id, j) => newFrom[j] === -1 && leftOver.has(id))).toBe(false)
      }),
      { numRuns: 300 },
    )
  })

  it('keeps a longest common subsequence when identities are unique', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { maxLength: 20 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { maxLength: 20 }),
        (before, after) => {
          expect(matched(before, after).kept.length).toBe(lcsLength(before, after))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('keeps a longest common subsequence among duplicates after up to two single-item edits', () => {
    const edit = fc.tuple(fc.boolean(), fc.nat(), fc.integer({ min: 0, max: 3 }))
    fc.assert(
      fc.property(smallInts, fc.array(edit, { maxLength: 2 }), (before, edits) => {
        const after = [...before]
        for (const [insert, at, value] of edits) {
          if (insert) after.splice(at % (after.length + 1), 0, value)
          else if (after.length > 0) after.splice(at % after.length, 1)
        }
        expect(matched(before, after).kept.length).toBe(lcsLength(before, after))
      }),
      { numRuns: 300 },
    )
  })
})

describe('array diff properties', () => {
  it("with unique items, the counts equal those of jsondiffpatch's own LCS", () => {
    const record = fc.record({ id: fc.integer({ min: 0, max: 12 }), v: fc.integer({ min: 0, max: 1 }) })
    const keyed = fc.uniqueArray(record, { selector: (r) => r.id, maxLength: 10 })
    const plain = fc.uniqueArray(fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constantFrom('a', 'b')), {
      maxLength: 10,
    })
    fc.assert(
      fc.property(
        fc.oneof(fc.tuple(keyed, keyed), fc.tuple(plain, plain)),
        fc.boolean(),
        ([left, right], moves) => {
          const hasher = new ItemHasher('id')
          const lcs = create({
            objectHash: (item) => String(hasher.identity(item as Json)),
            arrays: { detectMove: moves, includeValueOnMove: false },
          })
          const ours = jsonDiff({ left, right, array_key: 'id', detect_moves: moves })
          expect(ours.stats).toEqual(deltaStats(lcs.diff(left, right)))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('arrays full of duplicates, reordered, thinned and extended', () => {
    const pair = fc
      .tuple(
        smallInts,
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 0, max: 4 })), { maxLength: 6 }),
      )
      .map(([left, edits]) => {
        const right = [...left]
        for (const [a, b, value] of edits) {
          if (value === 4 && right.length > 0)
            right.splice(b % right.length, 0, ...right.splice(a % right.length, 1))
          else if (value === 3 && right.length > 0) right.splice(a % right.length, 1)
          else right.splice(a % (right.length + 1), 0, value)
        }
        return { left, right }
      })
    fc.assert(
      fc.property(pair, options, ({ left, right }, opts) => {
        expectCorrect({ list: left }, { list: right }, opts)
      }),
      { numRuns: 300 },
    )
  })

  it('a run inserted or removed at one place in an array of duplicates is just that', () => {
    fc.assert(
      fc.property(smallInts, fc.nat(), smallInts, fc.boolean(), (left, at, run, insert) => {
        const right = [...left]
        const start = at % (left.length + 1)
        const removed = insert ? 0 : right.splice(start, run.length).length
        if (insert) right.splice(start, 0, ...run)
        const { stats } = expectCorrect(left, right, {})
        expect(stats).toEqual({ added: insert ? run.length : 0, removed, changed: 0, moved: 0 })
      }),
      { numRuns: 300 },
    )
  })

  it('keyed records with repeated ids, records without the key, and nested lists', () => {
    const item = fc.oneof(
      fc.record({ id: fc.integer({ min: 0, max: 5 }), v: fc.integer({ min: 0, max: 2 }) }),
      fc.record({
        id: fc.integer({ min: 0, max: 5 }),
        list: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 4 }),
      }),
      fc.record({ v: fc.integer({ min: 0, max: 2 }) }),
      fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 3 }),
      fc.constantFrom<Json>(null, 0, 'id'),
    )
    const list = fc.array(item, { maxLength: 10 })
    const pair = fc.oneof(
      fc.tuple(list, list),
      list.chain((left) => fc.tuple(fc.constant(left), fc.shuffledSubarray(left))),
    )
    fc.assert(
      fc.property(pair, options, ([left, right], opts) => {
        expectCorrect(viaJson({ list: left }), viaJson({ list: right }), opts)
      }),
      { numRuns: 300 },
    )
  })
})
