import { create, type Delta, type DiffContext } from 'jsondiffpatch'
import { isJsonNumber, isRawNumber, numbersEqual } from '../number.ts'
import { createArraysFilter } from './array-filter.ts'
import { createItemHasher } from './hash.ts'
import type { Json } from './values.ts'

// Numbers kept exactly are objects to jsondiffpatch; they are compared by decimal value here, before
// its "trivial" filter would take them for objects (1.0 and 1 are equal; a change is a replacement).
function numbersDiffFilter(context: DiffContext): void {
  const { left, right } = context
  if (!isRawNumber(left) && !isRawNumber(right)) return
  const same = isJsonNumber(left) && isJsonNumber(right) && numbersEqual(left, right)
  context.setResult(same ? undefined : ([left, right] as DiffContext['result'])).exit()
}
numbersDiffFilter.filterName = 'numbers'

export interface DeltaOptions {
  // already in the key space of the documents (see keys.ts)
  arrayKey?: string
  detectMoves: boolean
}

// The one place that decides how deltas are computed. jsondiffpatch walks the documents and diffs
// objects; arrays go to our filter (array-filter.ts), near-linear where jsondiffpatch's
// LCS fills a matrix of (n + 1) × (m + 1) cells. No textDiff option: long strings stay whole
// replacements, which RFC 6902 can express.
export function computeDelta(left: Json, right: Json, options: DeltaOptions): Delta {
  const differ = create()
  const hasher = createItemHasher(options.arrayKey)
  differ.processor.pipes.diff.before('trivial', numbersDiffFilter)
  differ.processor.pipes.diff.replace(
    'arrays',
    createArraysFilter({ hasher, detectMoves: options.detectMoves }),
  )
  return differ.diff(left, right)
}
