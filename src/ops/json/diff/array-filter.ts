import type { DiffContext, Options } from 'jsondiffpatch'
import { equalWithin, jsonEqual } from '../value.ts'
import { type ArrayMatch, matchArrays } from './array-match.ts'
import type { ItemHasher } from './hash.ts'
import type { Json } from './values.ts'

const ARRAY_MOVE = 3
const QUICK_COMPARE = 64

// What a diff's arrays are matched by, read from the diff's options (computeDelta sets them on each
// diff; jsondiffpatch hands a context's options down to its children).
export interface ArrayMatchOptions extends Options {
  arrayMatch: { hasher: ItemHasher; detectMoves: boolean }
}

// Small pairs are compared outright; larger ones by their hashes (cached, so computed once per diff)
// and equal hashes are confirmed. A pair found equal is never descended into, so each value takes
// part in a bounded number of these comparisons however deep it sits.
function same(hasher: ItemHasher, a: Json, b: Json): boolean {
  return equalWithin(a, b, QUICK_COMPARE) ?? (hasher.content(a) === hasher.content(b) && jsonEqual(a, b))
}

// Paired items stay or move; without detect_moves, moved ones are a removal plus an addition.
function paired({ oldTo, kept }: ArrayMatch, i: number, detectMoves: boolean): boolean {
  return oldTo[i]! >= 0 && (kept[i] === 1 || detectMoves)
}

// Takes the place of jsondiffpatch's "arrays" diff filter and writes the same array delta format,
// which jsondiffpatch's patch() applies in three steps: it pulls out every "_<old index>" item
// (removed: [old, 0, 0]; moved: ['', new index, 3]), inserts added ([new]) and moved items in
// ascending order of their new index, then applies nested deltas at new indices. Items that keep
// their place are therefore left in their original order, and items paired by array_key whose
// content differs get a nested delta at their new index, computed by jsondiffpatch itself (objects)
// or by this filter again (arrays) through child contexts: the processor walks those iteratively,
// so nesting costs no stack here.
// One function for every diff, not one made per diff: compiled code that called a diff's own closures
// was dropped with them at the next full collection and compiled again in the next request.
export function arraysDiffFilter(context: DiffContext): void {
  if (!context.leftIsArray) return
  const { hasher, detectMoves } = (context.options as ArrayMatchOptions).arrayMatch
  const left = context.left as Json[]
  const right = context.right as Json[]
  const shorter = Math.min(left.length, right.length)
  let head = 0
  while (head < shorter && same(hasher, left[head]!, right[head]!)) head++
  let tail = 0
  while (
    tail < shorter - head &&
    same(hasher, left[left.length - 1 - tail]!, right[right.length - 1 - tail]!)
  )
    tail++
  const before = new Float64Array(left.length - head - tail)
  const after = new Float64Array(right.length - head - tail)
  if (before.length === 0 && after.length === 0) {
    context.setResult(undefined).exit()
    return
  }
  for (let i = 0; i < before.length; i++) before[i] = hasher.identity(left[head + i]!)
  for (let j = 0; j < after.length; j++) after[j] = hasher.identity(right[head + j]!)
  const match = matchArrays(before, after)
  const { oldTo, newFrom, kept } = match

  const delta: Record<string, unknown> = { _t: 'a' }
  for (let i = 0; i < before.length; i++) {
    if (!paired(match, i, detectMoves)) delta[`_${head + i}`] = [left[head + i], 0, 0]
    else if (kept[i] === 0) delta[`_${head + i}`] = ['', head + oldTo[i]!, ARRAY_MOVE]
  }
  // jsondiffpatch does not export its DiffContext class; children must be of it to be diffed
  const Child = context.constructor as new (left: unknown, right: unknown) => DiffContext
  for (let j = 0; j < after.length; j++) {
    const i = newFrom[j]!
    if (i < 0 || !paired(match, i, detectMoves)) delta[head + j] = [right[head + j]]
    else if (!same(hasher, left[head + i]!, right[head + j]!)) {
      context.push(new Child(left[head + i], right[head + j]), head + j)
    }
  }
  context.setResult(delta as DiffContext['result']).exit()
}
arraysDiffFilter.filterName = 'arrays'
