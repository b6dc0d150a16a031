// Documents the JSON ops warm up with on a pool thread at boot (OpDescriptor.warm): the shape of what tenants
// diff and patch (arrays of records with ids, nested objects), small enough that a thread is warm in well
// under a second. Rounds, not size, are what V8's optimizing tiers count.

export interface Item {
  id: number
  name: string
  price: number
  tags: string[]
}

export function items(count: number, shift: number): Item[] {
  return Array.from({ length: count }, (_, i) => {
    const id = i + shift
    return {
      id,
      name: `item ${id}`,
      price: (id % 97) / 10 + (i % 7 === 0 ? 1 : 0),
      tags: ['a', `t${id % 5}`],
    }
  })
}

export const WARM_DOC = {
  name: 'anvil',
  nested: { list: [1, 2, 3], flag: true, text: 'héllo wörld' },
  items: items(50, 0),
}
