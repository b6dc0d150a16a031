// The document and queries of the json/query benchmark (issue 39): a catalogue of products, about 10 MB
// of JSON for 40k products, each with a name, a price in cents, tags, stock per warehouse and a nested
// supplier. Deterministic: the same bytes every run.

export function catalogue(products: number): {
  store: { name: string; products: Record<string, unknown>[] }
} {
  const items = Array.from({ length: products }, (_, i) => ({
    id: i,
    sku: `SKU-${String(i).padStart(7, '0')}`,
    name: `Product ${i} ${['basic', 'plus', 'pro', 'max'][i % 4]}`,
    price: Math.round((i * 37) % 100000) / 100,
    tags: [['sale', 'new', 'clearance', 'featured'][i % 4], `cat-${i % 50}`],
    stock: { berlin: i % 17, paris: (i * 3) % 23, madrid: (i * 7) % 11 },
    supplier: { id: i % 997, name: `Supplier ${i % 997}`, country: ['DE', 'FR', 'ES', 'IT'][i % 4] },
    description: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt.',
  }))
  return { store: { name: 'Example', products: items } }
}

// Filter queries a client would run over such a catalogue: comparisons, a function, a descendant search.
export const QUERIES = [
  "$.store.products[?@.price < 10 && @.tags[0] == 'sale'].sku",
  "$.store.products[?search(@.name, 'pro$')].id",
  '$..supplier[?@ == 42]',
]
