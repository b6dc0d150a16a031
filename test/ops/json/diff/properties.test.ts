import fc from 'fast-check'
import { type Delta, patch as jdpPatch } from 'jsondiffpatch'
import { afterAll, describe, expect, it } from 'vitest'
import { jsonDiff } from '../../../../src/ops/json/diff/diff.ts'
import { coarseJsonPatch } from '../../../../src/ops/json/diff/fallback.ts'
import { deltaToJsonPatch } from '../../../../src/ops/json/diff/patch-format.ts'
import type { Json } from '../../../../src/ops/json/diff/values.ts'
import { jsonEqual } from '../../../../src/ops/json/value.ts'
import { documentPair, keyedListPair, patched, RESERVED_KEYS, reorderedPair, SAFE_KEYS } from './helpers.ts'

const ALL_KEYS = [...SAFE_KEYS, ...RESERVED_KEYS]
// jsondiffpatch's patch() takes any object delta with a truthy "_t" member for an array delta
const PATCHABLE_KEYS = SAFE_KEYS.filter((key) => key !== '_t')
const options = fc.record({
  array_key: fc.constantFrom(undefined, 'id', 'a', '__proto__'),
  detect_moves: fc.boolean(),
})
const RUNS = { numRuns: 250 }

function same(actual: Json, expected: Json): void {
  if (!jsonEqual(actual, expected)) {
    expect(JSON.stringify(actual)).toBe(JSON.stringify(expected))
    expect.fail('documents differ (by key order only? jsonEqual disagrees with JSON.stringify)')
  }
}

describe('json diff properties', () => {
  const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort()
  afterAll(() => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames)
    expect(Object.getPrototypeOf({})).toBe(Object.prototype)
  })

  it('json_patch applied to left gives right, and equal says whether they were equal', () => {
    fc.assert(
      fc.property(
        fc.oneof(documentPair(ALL_KEYS), keyedListPair, reorderedPair),
        options,
        ({ left, right }, opts) => {
          const result = jsonDiff({ left, right, ...opts, output: 'both' })
          same(patched(left, result.json_patch!), right)
          expect(result.equal).toBe(jsonEqual(left, right))
          if (result.equal) expect(result).toMatchObject({ delta: {}, json_patch: [] })
        },
      ),
      RUNS,
    )
  })

  it('the patch converted from the delta is right by itself, without the fallback', () => {
    fc.assert(
      fc.property(
        fc.oneof(documentPair(ALL_KEYS), keyedListPair, reorderedPair),
        options,
        ({ left, right }, opts) => {
          const { delta, equal } = jsonDiff({ left, right, ...opts })
          if (equal) return
          same(patched(left, deltaToJsonPatch(delta as Delta, left)), right)
        },
      ),
      RUNS,
    )
  })

  it("jsondiffpatch's own patch() applies the delta (documents without keys it mishandles)", () => {
    fc.assert(
      fc.property(
        fc.oneof(documentPair(PATCHABLE_KEYS), keyedListPair, reorderedPair),
        options,
        ({ left, right }, opts) => {
          const { delta, equal } = jsonDiff({ left, right, ...opts })
          same(equal ? left : (jdpPatch(structuredClone(left), delta as Delta) as Json), right)
        },
      ),
      RUNS,
    )
  })

  it('the coarse fallback patch is correct by itself', () => {
    fc.assert(
      fc.property(documentPair(ALL_KEYS), ({ left, right }) => {
        same(patched(left, coarseJsonPatch(left, right)), right)
      }),
      RUNS,
    )
  })

  it('stats count one delta leaf per patch operation', () => {
    fc.assert(
      fc.property(
        fc.oneof(documentPair(ALL_KEYS), keyedListPair, reorderedPair),
        options,
        ({ left, right }, opts) => {
          const { stats, json_patch } = jsonDiff({ left, right, ...opts, output: 'json_patch' })
          const ops = json_patch!
          expect(stats.removed).toBe(ops.filter((o) => o.op === 'remove').length)
          expect(stats.added).toBe(ops.filter((o) => o.op === 'add').length)
          expect(stats.changed).toBe(ops.filter((o) => o.op === 'replace').length)
          expect(stats.moved).toBeGreaterThanOrEqual(ops.filter((o) => o.op === 'move').length)
        },
      ),
      RUNS,
    )
  })
})
