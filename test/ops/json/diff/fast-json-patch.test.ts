import fc from 'fast-check'
import fastJsonPatch, { type Operation } from 'fast-json-patch'
import { describe, expect, it } from 'vitest'
import { jsonDiff } from '../../../../src/ops/json/diff/diff.ts'
import type { Json } from '../../../../src/ops/json/diff/values.ts'
import { decimalKey, parseJsonExact } from '../../../../src/ops/json/number.ts'
import { applyJsonPatch } from '../../../../src/ops/json/patch/patch.ts'
import { documentPair, keyedListPair, reorderedPair, SAFE_KEYS } from './helpers.ts'

const SEED = { seed: 15_2026 }
// fast-json-patch reads "__proto__" and the like as prototype members; those keys are tested elsewhere
const KEYS = SAFE_KEYS.filter((key) => key !== '\u0000x')

// fast-json-patch (the most used RFC 6902 applier, not ours) applies the patch json/diff returns.
function applyTheirs(left: Json, patch: unknown): unknown {
  return fastJsonPatch.applyPatch(fastJsonPatch.deepClone(left), patch as Operation[], true, false)
    .newDocument
}

// Numbers as tagged strings of their exact decimal value, so that a double-based applier can carry them.
function tagged(text: string): unknown {
  return JSON.parse(text, (_key, value, context?: { source?: string }) =>
    typeof value === 'number' ? `#n:${decimalKey(context!.source!)}` : value,
  )
}

describe('json/diff patches applied by fast-json-patch (differential)', () => {
  it('turn left into right on random documents, keyed lists and reorderings', () => {
    const pairs = fc.oneof(documentPair(KEYS), keyedListPair, reorderedPair)
    fc.assert(
      fc.property(
        pairs,
        fc.constantFrom(undefined, 'id'),
        fc.boolean(),
        ({ left, right }, arrayKey, moves) => {
          const diff = jsonDiff({
            left,
            right,
            output: 'json_patch',
            array_key: arrayKey,
            detect_moves: moves,
          })
          const wire = JSON.parse(JSON.stringify(diff.json_patch))
          expect(fastJsonPatch.validate(wire, fastJsonPatch.deepClone(left))).toBeUndefined()
          expect(applyTheirs(left, wire)).toEqual(right)
          // and /v1/json/patch agrees with fast-json-patch on the same patch
          expect(applyJsonPatch({ document: left, patch: wire }).result).toEqual(applyTheirs(left, wire))
        },
      ),
      { ...SEED, numRuns: 400 },
    )
  })

  it('with numbers beyond a double: the patch carries them exactly (compared as exact decimals)', () => {
    const big = fc.oneof(
      fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
      fc.constantFrom(
        '12345678901234567890',
        '12345678901234567891',
        '1.0',
        '1',
        '-0',
        '0.1',
        '0.10000000000000001',
      ),
    )
    const doc = fc
      .array(fc.tuple(fc.constantFrom('a', 'b', 'id', 'c'), big), { maxLength: 5 })
      .map((members) => `{${[...new Map(members)].map(([k, v]) => `"${k}":${v}`).join(',')}}`)
    const list = fc.array(doc, { maxLength: 6 }).map((items) => `[${items.join(',')}]`)
    fc.assert(
      fc.property(list, list, (leftText, rightText) => {
        const diff = jsonDiff({
          left: parseJsonExact(leftText),
          right: parseJsonExact(rightText),
          output: 'json_patch',
        })
        const patched = applyTheirs(tagged(leftText) as Json, tagged(JSON.stringify(diff.json_patch)))
        expect(patched).toEqual(tagged(rightText))
      }),
      { ...SEED, numRuns: 300 },
    )
  })
})
