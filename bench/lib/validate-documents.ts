// The realistic schema and instances of the json/validate benchmark (issue 39): an order as an e-commerce
// API takes it, 2020-12, with $defs and $ref, required members, patterns, enums, numeric bounds with a
// multipleOf in cents, an array of line items, and `additionalProperties: false`. One instance in ten is
// invalid in one place (a bad SKU, a negative quantity, an unknown member), as a CI batch of real payloads is.

export const ORDER_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://example.com/schemas/order.json',
  type: 'object',
  required: ['id', 'customer', 'items', 'status', 'created_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: '^ord_[A-Za-z0-9]{12}$' },
    customer: { $ref: '#/$defs/customer' },
    items: { type: 'array', minItems: 1, maxItems: 100, items: { $ref: '#/$defs/item' } },
    status: { enum: ['pending', 'paid', 'shipped', 'delivered', 'cancelled'] },
    created_at: { type: 'string', format: 'date-time' },
    total: { type: 'number', minimum: 0, multipleOf: 0.01 },
    tags: { type: 'array', items: { type: 'string', maxLength: 32 }, uniqueItems: true },
    shipping: {
      type: 'object',
      required: ['country'],
      properties: {
        country: { type: 'string', pattern: '^[A-Z]{2}$' },
        postcode: { type: 'string', maxLength: 16 },
        express: { type: 'boolean' },
      },
    },
  },
  $defs: {
    customer: {
      type: 'object',
      required: ['id', 'email'],
      properties: {
        id: { type: 'integer', minimum: 1 },
        email: { type: 'string', format: 'email', maxLength: 254 },
        name: { type: 'string', minLength: 1, maxLength: 200 },
      },
    },
    item: {
      type: 'object',
      required: ['sku', 'quantity', 'price'],
      additionalProperties: false,
      properties: {
        sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' },
        quantity: { type: 'integer', minimum: 1, maximum: 1000 },
        price: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.01 },
        note: { type: ['string', 'null'] },
      },
    },
  },
}

const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled']

// Deterministic: instance i is the same in every run.
export function orderInstance(i: number): Record<string, unknown> {
  const items = Array.from({ length: 1 + (i % 5) }, (_, k) => ({
    sku: `ABC-${String(1000 + ((i * 7 + k) % 9000))}`,
    quantity: 1 + ((i + k) % 9),
    price: Math.round(((i * 13 + k * 7) % 10000) + 99) / 100,
    ...(k % 2 === 0 ? { note: null } : {}),
  }))
  const order: Record<string, unknown> = {
    id: `ord_${String(i).padStart(12, '0')}`,
    customer: { id: 1 + (i % 5000), email: `user${i}@example.com`, name: `Customer ${i}` },
    items,
    status: STATUSES[i % STATUSES.length],
    created_at: `2026-11-${String(1 + (i % 28)).padStart(2, '0')}T12:34:56Z`,
    total: 19.99,
    tags: ['web', `batch-${i % 10}`],
    shipping: { country: 'DE', postcode: '10115', express: i % 3 === 0 },
  }
  if (i % 10 === 9) {
    const fault = (i / 10) % 3
    if (fault < 1) (items[0] as Record<string, unknown>).sku = 'bad-sku'
    else if (fault < 2) (items[0] as Record<string, unknown>).quantity = -1
    else order.coupon = 'FREE'
  }
  return order
}

export function orderInstances(n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => orderInstance(i))
}
