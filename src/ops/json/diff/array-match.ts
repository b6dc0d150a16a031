import { keepShape } from '../../../lib/kept-shapes.ts'

// Pairs the items of two arrays by identity (see hash.ts) in O((n + m) log n) time and
// O(n + m) memory, where jsondiffpatch's LCS fills an (n + 1) × (m + 1) matrix.
//
// Each item of `after` is offered a few candidates in `before` with the same identity: exactly one
// when the identity is unique on both sides; with duplicates, the occurrences of about the same rank
// counted from the start and from the end (give or take WINDOW). The longest chain of candidates that
// increases on both sides (Hunt–Szymanski: a longest increasing subsequence, found by patience
// sorting) keeps its place. With unique identities that is the longest common subsequence, as
// jsondiffpatch's LCS finds it; with duplicates it comes close at a bounded cost. Items left over on
// both sides with the same identity are then paired in order, as jsondiffpatch pairs removed items
// with added ones: those are the moves.

export interface ArrayMatch {
  // for each index of `before`: the index of the same item in `after`, or -1 when it was removed
  oldTo: Int32Array
  // for each index of `after`: the index of the same item in `before`, or -1 when it was added
  newFrom: Int32Array
  // 1 for the items of `before` that keep their place; the others with oldTo >= 0 moved
  kept: Uint8Array
}

const WINDOW = 2

// The indices of `before` grouped by identity, each group ascending, in one flat array.
interface Groups {
  groupOf: IdentityTable
  count: number
  start: Int32Array // group g is positions[start[g] .. start[g + 1])
  positions: Int32Array
}

// Identity → group number, by open addressing over typed arrays: a Map keyed by these 53-bit numbers
// (heap numbers, not small integers) cost 14% of a 100k-item diff. Identities are hashes, so their low
// 32 bits pick a slot as well as any mixing would.
class IdentityTable {
  readonly #mask: number
  readonly #keys: Float64Array
  readonly #groups: Int32Array

  constructor(entries: number) {
    let size = 16
    while (size < entries * 2) size *= 2
    this.#mask = size - 1
    this.#keys = new Float64Array(size)
    this.#groups = new Int32Array(size).fill(-1)
  }

  // the slot holding `id`, or the empty slot where it would go
  #slot(id: number): number {
    let slot = (id | 0) & this.#mask
    while (this.#groups[slot] !== -1 && this.#keys[slot] !== id) slot = (slot + 1) & this.#mask
    return slot
  }

  get(id: number): number {
    return this.#groups[this.#slot(id)]!
  }

  // the group of `id`, given `next` if it had none
  getOrAdd(id: number, next: number): number {
    const slot = this.#slot(id)
    if (this.#groups[slot] === -1) {
      this.#keys[slot] = id
      this.#groups[slot] = next
    }
    return this.#groups[slot]!
  }
}
keepShape(new IdentityTable(0))

function groupIdentities(ids: Float64Array): Groups {
  const groupOf = new IdentityTable(ids.length)
  const group = new Int32Array(ids.length)
  let count = 0
  for (let i = 0; i < ids.length; i++) {
    const g = groupOf.getOrAdd(ids[i]!, count)
    if (g === count) count++
    group[i] = g
  }
  const start = new Int32Array(count + 1)
  for (let i = 0; i < ids.length; i++) start[group[i]! + 1]!++
  for (let g = 0; g < count; g++) start[g + 1]! += start[g]!
  const next = start.slice(0, count)
  const positions = new Int32Array(ids.length)
  for (let i = 0; i < ids.length; i++) positions[next[group[i]!]!++] = i
  return { groupOf, count, start, positions }
}

// Patience sorting over (after index, before index) candidates offered in ascending `after` order,
// each item's candidates in descending `before` order so that no two of them can chain.
class LongestChain {
  readonly #oldOf: number[] = []
  readonly #newOf: number[] = []
  readonly #previous: number[] = []
  readonly #tail: number[] = [] // the candidate ending the best chain of each length
  readonly #tailOld: number[] = []

  offer(newIndex: number, oldIndex: number): void {
    let lo = 0
    let hi = this.#tail.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.#tailOld[mid]! < oldIndex) lo = mid + 1
      else hi = mid
    }
    const candidate = this.#oldOf.length
    this.#oldOf.push(oldIndex)
    this.#newOf.push(newIndex)
    this.#previous.push(lo > 0 ? this.#tail[lo - 1]! : -1)
    this.#tail[lo] = candidate
    this.#tailOld[lo] = oldIndex
  }

  keep(match: ArrayMatch): void {
    let candidate = this.#tail.length > 0 ? this.#tail[this.#tail.length - 1]! : -1
    for (; candidate >= 0; candidate = this.#previous[candidate]!) {
      const oldIndex = this.#oldOf[candidate]!
      const newIndex = this.#newOf[candidate]!
      match.oldTo[oldIndex] = newIndex
      match.newFrom[newIndex] = oldIndex
      match.kept[oldIndex] = 1
    }
  }
}
keepShape(new LongestChain())

// Offers the occurrences of group g whose rank is within WINDOW of `rank` (ranks aligned from the
// start) or of `rank + shift` (aligned from the end): the upper window first, each descending, and
// no rank twice where the windows overlap.
function offerCandidates(
  chain: LongestChain,
  j: number,
  groups: Groups,
  g: number,
  rank: number,
  shift: number,
): void {
  const first = groups.start[g]!
  const last = groups.start[g + 1]! - 1 - first
  const upper = Math.max(rank, rank + shift)
  const lower = Math.min(rank, rank + shift)
  for (let r = Math.min(upper + WINDOW, last); r >= Math.max(upper - WINDOW, 0); r--) {
    chain.offer(j, groups.positions[first + r]!)
  }
  for (let r = Math.min(lower + WINDOW, last, upper - WINDOW - 1); r >= Math.max(lower - WINDOW, 0); r--) {
    chain.offer(j, groups.positions[first + r]!)
  }
}

export function matchArrays(before: Float64Array, after: Float64Array): ArrayMatch {
  const match: ArrayMatch = {
    oldTo: new Int32Array(before.length).fill(-1),
    newFrom: new Int32Array(after.length).fill(-1),
    kept: new Uint8Array(before.length),
  }
  const groups = groupIdentities(before)
  const groupCount = groups.count
  const afterGroup = new Int32Array(after.length)
  const afterCount = new Int32Array(groupCount)
  for (let j = 0; j < after.length; j++) {
    const g = groups.groupOf.get(after[j]!)
    afterGroup[j] = g
    if (g >= 0) afterCount[g]!++
  }

  const chain = new LongestChain()
  const rank = new Int32Array(groupCount)
  for (let j = 0; j < after.length; j++) {
    const g = afterGroup[j]!
    if (g < 0) continue
    const shift = groups.start[g + 1]! - groups.start[g]! - afterCount[g]!
    offerCandidates(chain, j, groups, g, rank[g]!++, shift)
  }
  chain.keep(match)

  // leftovers with the same identity, paired in order; each group's cursor only moves forward
  const cursor = groups.start.slice(0, groupCount)
  for (let j = 0; j < after.length; j++) {
    const g = afterGroup[j]!
    if (g < 0 || match.newFrom[j]! >= 0) continue
    const end = groups.start[g + 1]!
    while (cursor[g]! < end && match.oldTo[groups.positions[cursor[g]!]!]! >= 0) cursor[g]!++
    if (cursor[g]! === end) continue
    const i = groups.positions[cursor[g]!++]!
    match.oldTo[i] = j
    match.newFrom[j] = i
  }
  return match
}
