import { create, type Delta } from 'jsondiffpatch'
import { createArraysFilter } from './json-diff-array-filter.ts'
import { createItemHasher } from './json-diff-hash.ts'
import type { Json } from './json-diff-values.ts'

export interface DeltaOptions {
  // already in the key space of the documents (see json-diff-keys.ts)
  arrayKey?: string
  detectMoves: boolean
}

// The one place that decides how deltas are computed. jsondiffpatch walks the documents and diffs
// objects; arrays go to our filter (json-diff-array-filter.ts), near-linear where jsondiffpatch's
// LCS fills a matrix of (n + 1) × (m + 1) cells. No textDiff option: long strings stay whole
// replacements, which RFC 6902 can express.
export function computeDelta(left: Json, right: Json, options: DeltaOptions): Delta {
  const differ = create()
  const hasher = createItemHasher(options.arrayKey)
  differ.processor.pipes.diff.replace(
    'arrays',
    createArraysFilter({ hasher, detectMoves: options.detectMoves }),
  )
  return differ.diff(left, right)
}
