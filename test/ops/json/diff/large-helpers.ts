import type { DiffStats } from '../../../../src/ops/json/diff/stats.ts'
import { isJsonObject, type Json } from '../../../../src/ops/json/diff/values.ts'

// a deterministic stream of numbers in [0, 1)
export function lcg(seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state / 2147483648
  }
}

export interface EditedList {
  left: Json[]
  right: Json[]
  // stats by [array_key "id" or none][detect_moves]
  expected: (keyed: boolean, detectMoves: boolean) => DiffStats
}

function record(id: number): Json {
  return { id, name: `item ${id}`, tags: id % 3 === 0 ? [] : ['alpha', 'beta'], score: id * 1.5 }
}

// `count` records, then in `right`: 5% of them (outside the other edits) get a new score, a splice at
// 30% removes 1% and inserts 0.5% new records, and a block of 1% moves from 60% to 10%. Every record
// is distinct, so the stats of a correct diff are known exactly.
export function editedList(count: number, seed: number): EditedList {
  const random = lcg(seed)
  const spliceAt = Math.floor(count * 0.3)
  const removed = Math.floor(count / 100)
  const inserted = Math.floor(count / 200)
  const blockAt = Math.floor(count * 0.6)
  const block = Math.floor(count / 100)
  const blockTo = Math.floor(count * 0.1)
  const inSplice = (id: number) => id >= spliceAt && id < spliceAt + removed
  const inBlock = (id: number) => id >= blockAt && id < blockAt + block
  const edited = new Set<number>()
  while (edited.size < Math.floor(count / 20)) {
    const id = Math.floor(random() * count)
    if (!inSplice(id) && !inBlock(id)) edited.add(id)
  }

  const left = Array.from({ length: count }, (_, id) => record(id))
  const right: Json[] = []
  for (let id = 0; id < count; id++) {
    if (id === blockTo) right.push(...left.slice(blockAt, blockAt + block))
    if (id === spliceAt) {
      for (let k = 0; k < inserted; k++)
        right.push({ id: count + k, name: `new ${k}`, tags: ['new'], score: 0 })
    }
    if (inSplice(id) || inBlock(id)) continue
    right.push(edited.has(id) ? { ...(left[id] as object), score: -1 - id } : left[id]!)
  }
  const e = edited.size
  return {
    // separate copies, as two parsed request fields would be
    left: JSON.parse(JSON.stringify(left)),
    right: JSON.parse(JSON.stringify(right)),
    expected(keyed, detectMoves) {
      const moved = detectMoves ? block : 0
      const asPairs = (keyed ? 0 : e) + block - moved
      return { added: inserted + asPairs, removed: removed + asPairs, changed: keyed ? e : 0, moved }
    },
  }
}

// Items with many duplicates and a few shapes: small numbers, letters, records with an "id" (repeated
// ids included), records without one, and nested arrays.
function randomItem(random: () => number): Json {
  const k = Math.floor(random() * 1000)
  switch (k % 6) {
    case 0:
      return k % 10
    case 1:
      return ['a', 'b', 'c'][k % 3]!
    case 2:
    case 3:
      return { id: k % 400, v: k % 4 }
    case 4:
      return { v: k % 5, list: [k % 3, k % 2] }
    default:
      return [k % 7, 'x']
  }
}

function edit(list: Json[], random: () => number): void {
  const at = Math.floor(random() * list.length)
  const kind = Math.floor(random() * 5)
  if (kind === 0 || list.length === 0) list.splice(at, 0, randomItem(random))
  else if (kind === 1) list.splice(at, 1)
  else if (kind === 2) list.splice(Math.floor(random() * list.length), 0, ...list.splice(at, 1))
  else if (kind === 3) list[at] = randomItem(random)
  else {
    const item = list[at]!
    if (isJsonObject(item))
      list[at] = { ...item, v: Math.floor(random() * 9), ...(random() < 0.3 ? { w: 1 } : {}) }
    else if (Array.isArray(item)) list[at] = [...item, Math.floor(random() * 3)]
    else list[at] = randomItem(random)
  }
}

// A random `count`-item list inside a document, and a version with `edits` random insertions,
// deletions, moves, replacements and nested edits; also a run of items moved as a block.
export function randomLargePair(count: number, edits: number, seed: number): { left: Json; right: Json } {
  const random = lcg(seed)
  const items = Array.from({ length: count }, () => randomItem(random))
  const changed = structuredClone(items)
  for (let n = 0; n < edits; n++) edit(changed, random)
  const from = Math.floor(random() * (changed.length - 200))
  changed.splice(Math.floor(random() * (changed.length - 200)), 0, ...changed.splice(from, 200))
  return { left: { list: items, meta: { count } }, right: { list: changed, meta: { count: changed.length } } }
}
