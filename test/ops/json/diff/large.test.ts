import { type Delta, patch as jdpPatch } from 'jsondiffpatch'
import { describe, expect, it } from 'vitest'
import { type JsonDiffResult, jsonDiff } from '../../../../src/ops/json/diff/diff.ts'
import { MAX_DEPTH } from '../../../../src/ops/json/diff/keys.ts'
import { deltaToJsonPatch } from '../../../../src/ops/json/diff/patch-format.ts'
import type { Json } from '../../../../src/ops/json/diff/values.ts'
import { jsonEqual } from '../../../../src/ops/json/value.ts'
import { patched } from './helpers.ts'
import { editedList, lcg, randomLargePair } from './large-helpers.ts'

// Both ways a client applies the result: the returned json_patch (through /v1/json/patch's own
// implementation, splice by splice) and the delta through jsondiffpatch's patch(). The returned patch
// must also be the one converted from the delta, i.e. the coarse fallback was not needed.
function expectCorrect(left: Json, right: Json, result: JsonDiffResult, viaJsondiffpatch = true): void {
  const delta = result.delta as Delta
  const ops = deltaToJsonPatch(delta, left)
  expect(JSON.stringify(result.json_patch) === JSON.stringify(ops)).toBe(true)
  expect(jsonEqual(patched(left, ops), right)).toBe(true)
  if (viaJsondiffpatch) expect(jsonEqual(jdpPatch(structuredClone(left), delta) as Json, right)).toBe(true)
}

describe('jsonDiff on large arrays', () => {
  const list = editedList(20_000, 11)

  for (const keyed of [true, false]) {
    for (const detectMoves of [true, false]) {
      it(`20k records, 5% edited, a splice and a moved block: exact stats (array_key ${keyed ? '"id"' : 'none'}, detect_moves ${detectMoves})`, () => {
        const left = { items: list.left }
        const right = { items: list.right }
        const result = jsonDiff({
          left,
          right,
          ...(keyed ? { array_key: 'id' } : {}),
          detect_moves: detectMoves,
          output: 'both',
        })
        expect(result.stats).toEqual(list.expected(keyed, detectMoves))
        expectCorrect(left, right, result)
      })
    }
  }

  it('random 12k-item documents with duplicates, nested edits and a moved block', () => {
    const cases = [
      { seed: 1, options: { array_key: 'id', detect_moves: true } },
      { seed: 2, options: { detect_moves: true } },
      { seed: 3, options: { array_key: 'id', detect_moves: false } },
    ]
    for (const { seed, options } of cases) {
      const { left, right } = randomLargePair(12_000, 600, seed)
      const result = jsonDiff({ left, right, ...options, output: 'both' })
      expect(result.equal).toBe(false)
      expectCorrect(left, right, result)
    }
  })

  it('a shuffled 10k-item array: every item but a longest increasing run is one move', () => {
    const random = lcg(20)
    const left = Array.from({ length: 10_000 }, (_, i) => i)
    const right = left
      .map((v) => [random(), v] as const)
      .sort((a, b) => a[0] - b[0])
      .map(([, v]) => v)
    const result = jsonDiff({ left, right, output: 'both' })
    expect(result.stats).toMatchObject({ added: 0, removed: 0, changed: 0 })
    // a random permutation of n keeps about 2√n items in place
    expect(result.stats.moved).toBeGreaterThan(10_000 - 4 * Math.sqrt(10_000))
    expectCorrect(left, right, result)
  })

  it('100k records (about 10 MB a side) in one diff', () => {
    const big = editedList(100_000, 5)
    const left = { items: big.left }
    const right = { items: big.right }
    const result = jsonDiff({ left, right, array_key: 'id', output: 'both' })
    expect(result.stats).toEqual(big.expected(true, true))
    // jsondiffpatch's patch() is checked on the 20k records: at this size it adds seconds of splicing
    expectCorrect(left, right, result, false)
  })

  // Arrays inside arrays are matched by content, so each level wraps the next in a keyed record:
  // [array, record, array, ...] down to 2,000 records at the bottom, nested 511 levels in all.
  it('records holding arrays of records, nested to the depth limit, edited at several levels', () => {
    const levels = (MAX_DEPTH - 2) / 2
    const build = (edited: Set<number>): Json => {
      let inner: Json = Array.from({ length: 2_000 }, (_, i) => ({
        id: i,
        v: edited.has(-1) && i % 50 === 0 ? 1 : 0,
      }))
      for (let level = levels - 1; level >= 0; level--) {
        const a = { id: `a${level}` }
        const b = { id: `b${level}`, v: edited.has(level) ? 1 : 0 }
        const child: Json = { id: `c${level}`, list: inner }
        // edited levels gain an item, and reverse the order of the others
        inner = edited.has(level) ? [{ id: `new${level}` }, child, b, a] : [a, b, child]
      }
      return inner
    }
    const left = build(new Set())
    const right = build(new Set([0, 7, 250, levels - 1, -1]))
    const result = jsonDiff({ left, right, array_key: 'id', output: 'both' })
    // per edited level: the new item, "b" changed, "c" and "b" moved around "a"; 40 records at the bottom
    expect(result.stats).toEqual({ added: 4, removed: 0, changed: 44, moved: 8 })
    expectCorrect(left, right, result)
  })
})
