// The guard's json/diff documents: the shape issue 23 measured its regression with (items
// {id, name, price, tags[3], nested{x, y}}, about 100 bytes of JSON each, so 100k make 9.8 MB a side), and
// the edits of bench/json-diff.ts's documents: 5% of the items changed, a splice at 30% removes 1% and
// inserts 0.5% new ones, and a block of 1% moves from 60% to 10%. Both sides are separately parsed JSON.
export interface Item {
  id: number
  name: string
  price: number
  tags: string[]
  nested: { x: number; y: string }
}

const TAGS = ['new', 'sale', 'hot', 'top', 'eco', 'gift', 'pro']

function item(id: number): Item {
  return {
    id,
    name: `Item ${id}`,
    price: (id % 9973) / 10,
    tags: [TAGS[id % 7]!, TAGS[(id + 2) % 7]!, TAGS[(id + 4) % 7]!],
    nested: { x: id % 1000, y: `n${id % 97}` },
  }
}

export function itemDocuments(count: number): { left: Item[]; right: Item[] } {
  let state = 42
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state / 2147483648
  }
  const left = Array.from({ length: count }, (_, id) => item(id))
  const right = left.map((p) => structuredClone(p))
  for (let n = 0; n < count / 20; n++) {
    const changed = right[Math.floor(random() * count)]!
    // a changed item: its price, or a field of its nested object, or one of its tags
    const what = n % 3
    if (what === 0) changed.price += 1
    else if (what === 1) changed.nested.x += 1
    else changed.tags[1] = 'changed'
  }
  right.splice(
    Math.floor(count * 0.3),
    count / 100,
    ...Array.from({ length: count / 200 }, (_, k) => item(count + k)),
  )
  const block = right.splice(Math.floor(count * 0.6), count / 100)
  right.splice(Math.floor(count * 0.1), 0, ...block)
  return { left: JSON.parse(JSON.stringify(left)), right: JSON.parse(JSON.stringify(right)) }
}
