import { create, type Delta } from 'jsondiffpatch'
import { createObjectHash } from './json-diff-hash.ts'
import type { Json } from './json-diff-values.ts'

export interface DeltaOptions {
  // already in the key space of the documents (see json-diff-keys.ts)
  arrayKey?: string
  detectMoves: boolean
}

// The one place that decides how deltas are computed, so the array strategy (today jsondiffpatch's
// LCS, quadratic in the length of the changed middle of an array) can be replaced on its own.
// No textDiff option: long strings stay whole replacements, which RFC 6902 can express.
export function computeDelta(left: Json, right: Json, options: DeltaOptions): Delta {
  const differ = create({
    objectHash: createObjectHash(options.arrayKey),
    arrays: { detectMove: options.detectMoves, includeValueOnMove: false },
  })
  return differ.diff(left, right)
}
