// Documents the JSON ops warm up with on a pool thread at boot (OpDescriptor.warm): the shape of what tenants
// diff and patch (arrays of records with ids, nested objects), small enough that a thread is warm in well
// under a second. Rounds, not size, are what V8's optimizing tiers count, and a path no warm input takes has no
// type feedback when a request first takes it.

export interface Item {
  id: number
  name: string
  price: number
  tags: string[]
  nested: { x: number; y: number }
}

export function items(count: number, shift: number): Item[] {
  return Array.from({ length: count }, (_, i) => {
    const id = i + shift
    return {
      id,
      name: `item ${id}`,
      price: (id % 97) / 10 + (i % 7 === 0 ? 1 : 0),
      tags: ['a', `t${id % 5}`],
      nested: { x: id % 100, y: id % 17 },
    }
  })
}

// A list as a tenant edits it, every kind of edit at least once, so that the diff's warm-up takes each path
// a request takes (a first request that meets an unwarmed path runs it in the interpreter): every seventh
// price changed, every fiftieth item's nested object changed, items deleted and inserted at scattered
// places, and a block of a fiftieth of the list moved from 60% to 10%.
export function edited(list: readonly Item[]): Item[] {
  const out = list.map((item, i) => ({
    ...item,
    price: i % 7 === 3 ? item.price + 1 : item.price,
    nested: i % 50 === 25 ? { ...item.nested, y: item.nested.y + 1 } : item.nested,
  }))
  const n = list.length
  for (let k = 1; k <= 4; k++) out.splice(Math.floor((n * k) / 5), 1)
  for (let k = 1; k <= 4; k++) out.splice(Math.floor((n * k) / 5) + 3, 0, ...items(1, n + k))
  const block = out.splice(Math.floor(n * 0.6), Math.max(1, Math.floor(n / 50)))
  out.splice(Math.floor(n * 0.1), 0, ...block)
  return out
}

export const WARM_DOC = {
  name: 'anvil',
  nested: { list: [1, 2, 3], flag: true, text: 'héllo wörld' },
  items: items(50, 0),
}
