import type { Delta } from 'jsondiffpatch'
import { keepShape } from '../../../lib/kept-shapes.ts'
import type { Json, JsonPatchOp } from './values.ts'

// Converts one jsondiffpatch array delta into RFC 6902 operations.
//
// jsondiffpatch patches an array in three phases: it pulls out every removed and moved item
// (keys "_<old index>"), inserts added and moved items in ascending order of their final index,
// then applies nested changes at final indices. RFC 6902 has no "pull out now, insert later": a
// `move` does both at once, while the other moved items are still in the array. So we track where
// those not-yet-placed items physically sit: each stays glued in front of the next unmoved item
// after it (its "anchor"), or at the end, because every insertion goes right after the already
// finished prefix. Counting them with a Fenwick tree keeps the whole conversion O(k log k) for k
// changes, on top of reading the delta.

export interface NestedChange {
  index: number
  delta: Delta
  left: Json
}

class Counter {
  readonly #tree: number[]
  constructor(size: number) {
    this.#tree = new Array<number>(size + 1).fill(0)
    for (let i = 1; i <= size; i++) {
      this.#tree[i]! += 1
      const parent = i + (i & -i)
      if (parent <= size) this.#tree[parent]! += this.#tree[i]!
    }
  }
  // how many of the first `count` slots are still occupied
  prefix(count: number): number {
    let sum = 0
    for (let i = count; i > 0; i -= i & -i) sum += this.#tree[i]!
    return sum
  }
  clear(slot: number): void {
    for (let i = slot + 1; i < this.#tree.length; i += i & -i) this.#tree[i]! -= 1
  }
}
keepShape(new Counter(0))

// how many entries of an ascending list satisfy value <= limit
function countAtMost(sorted: readonly number[], limit: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! <= limit) lo = mid + 1
    else hi = mid
  }
  return lo
}

// gaps[i] = sorted[i] - i counts the values absent from `sorted` below sorted[i]; it never decreases,
// so "the n-th value absent from sorted" is one binary search away.
function gapsOf(sorted: readonly number[]): number[] {
  return sorted.map((value, i) => value - i)
}

function nthAbsent(gaps: readonly number[], n: number): number {
  return n + countAtMost(gaps, n)
}

interface Insert {
  to: number
  value?: Json
  move?: number // position in the list of moved items, by ascending original rank
}

function readDelta(delta: Record<string, unknown>, length: number) {
  const removed: number[] = []
  const moved: { from: number; to: number }[] = []
  const added: { to: number; value: Json }[] = []
  const changed: { index: number; delta: Delta }[] = []
  for (const key of Object.keys(delta)) {
    if (key === '_t') continue
    const item = delta[key] as Delta
    const index = Number(key.startsWith('_') ? key.slice(1) : key)
    if (!Number.isSafeInteger(index) || index < 0) throw new Error(`bad array delta key ${key}`)
    if (key.startsWith('_')) {
      if (!Array.isArray(item) || index >= length) throw new Error(`bad array delta at ${key}`)
      if (item[2] === 0) removed.push(index)
      else if (item[2] === 3) moved.push({ from: index, to: item[1] as number })
      else throw new Error(`bad array delta at ${key}`)
    } else if (Array.isArray(item) && item.length === 1) {
      added.push({ to: index, value: item[0] as Json })
    } else if (!Array.isArray(item) || item.length === 2) {
      changed.push({ index, delta: item })
    } else {
      throw new Error(`unsupported array delta at ${key}`)
    }
  }
  removed.sort((a, b) => a - b)
  return { removed, moved, added, changed }
}

export function arrayDeltaToOps(
  delta: Record<string, unknown>,
  left: Json[],
  path: string,
  ops: JsonPatchOp[],
): NestedChange[] {
  const { removed, moved, added, changed } = readDelta(delta, left.length)
  for (let i = removed.length - 1; i >= 0; i--) ops.push({ op: 'remove', path: `${path}/${removed[i]}` })

  const removedGaps = gapsOf(removed)
  const rankOf = (index: number) => index - countAtMost(removed, index)
  const movedByRank = moved.map((m) => ({ ...m, rank: rankOf(m.from) })).sort((a, b) => a.rank - b.rank)
  const movedGaps = gapsOf(movedByRank.map((m) => m.rank))

  const inserts: Insert[] = [
    ...added.map((a) => ({ to: a.to, value: a.value })),
    ...movedByRank.map((m, i) => ({ to: m.to, move: i })),
  ].sort((a, b) => a.to - b.to)
  const targets = inserts.map((ins) => ins.to)
  const targetGaps = gapsOf(targets)
  const unplaced = new Counter(movedByRank.length)

  // Before the k-th insertion (ascending final index `to`) the array reads, logically: the finished
  // prefix (`to` items), then the unmoved items not reached yet. Physically, the unplaced moved items
  // sit among them, each just before its anchor (the first unmoved item after it), so a physical
  // index is a logical one plus the unplaced moved items in front of it.
  inserts.forEach((ins, k) => {
    const passed = ins.to - k // unmoved items already in the finished prefix
    let from = -1
    if (ins.move !== undefined) {
      // the anchor's index among unmoved items; the count of unmoved items when it has none (end)
      const anchor = movedGaps[ins.move]!
      const logical = anchor < passed ? nthAbsent(targetGaps, anchor) : ins.to + anchor - passed
      from = logical + unplaced.prefix(ins.move)
      unplaced.clear(ins.move)
    }
    // unplaced moved items whose anchor is inside the finished prefix lie before the insertion point
    const to = ins.to + unplaced.prefix(countAtMost(movedGaps, passed - 1))
    if (ins.move === undefined) ops.push({ op: 'add', path: `${path}/${to}`, value: ins.value! })
    else if (from !== to) ops.push({ op: 'move', from: `${path}/${from}`, path: `${path}/${to}` })
  })

  // nested changes address final indices; find which original item ended up at each
  const movedTo = new Map(movedByRank.map((m) => [m.to, m.from]))
  return changed.map(({ index, delta: itemDelta }) => {
    let original = movedTo.get(index)
    if (original === undefined) {
      const rank = nthAbsent(movedGaps, index - countAtMost(targets, index - 1))
      original = nthAbsent(removedGaps, rank)
    }
    return { index, delta: itemDelta, left: left[original]! }
  })
}
