import { describe, expect, it } from 'vitest'
import { SchemaCache } from '../../../../src/ops/json/validate/cache.ts'

// The per-tenant cache of compiled schemas: a schema compiles once per tenant, and every bound holds.

const schema = (n: number) => ({ $id: `https://example.com/s${n}`, type: 'integer', minimum: n })
const OPTIONS = { formatAssertion: false }

describe('SchemaCache', () => {
  it('compiles a schema once per tenant and options, by content', () => {
    const cache = new SchemaCache({ maxEntries: 10, maxBytes: 1e6, maxPerTenant: 10 })
    const a = cache.forTenant('a')
    const first = a.get(schema(1), OPTIONS)
    expect(a.get(JSON.parse(JSON.stringify(schema(1))), OPTIONS)).toBe(first)
    expect(a.get(schema(1), { formatAssertion: true })).not.toBe(first)
    expect(cache.forTenant('b').get(schema(1), OPTIONS)).not.toBe(first)
    expect(cache.size).toBe(3)
  })

  it('keeps maxEntries compiled schemas, dropping the least recently used past them', () => {
    const cache = new SchemaCache({ maxEntries: 2, maxBytes: 1e6, maxPerTenant: 10 })
    const t = cache.forTenant('t')
    const one = t.get(schema(1), OPTIONS)
    t.get(schema(2), OPTIONS)
    expect(cache.size).toBe(2)
    t.get(schema(3), OPTIONS)
    expect(cache.size).toBe(2)
    expect(t.get(schema(1), OPTIONS)).not.toBe(one)
  })

  it('keeps maxPerTenant schemas of one tenant: past them it evicts its own, not another tenant', () => {
    const cache = new SchemaCache({ maxEntries: 10, maxBytes: 1e6, maxPerTenant: 2 })
    const other = cache.forTenant('other').get(schema(0), OPTIONS)
    const busy = cache.forTenant('busy')
    const one = busy.get(schema(1), OPTIONS)
    busy.get(schema(2), OPTIONS)
    busy.get(schema(3), OPTIONS)
    expect(cache.size).toBe(3)
    expect(cache.forTenant('other').get(schema(0), OPTIONS)).toBe(other)
    expect(busy.get(schema(1), OPTIONS)).not.toBe(one)
  })

  it('holds maxBytes of compiled schemas, and compiles one over a quarter of it for its request only', () => {
    const text = JSON.stringify(schema(1)).length
    // four fit (20 bytes a byte of text), a fifth does not; each is a quarter of the bound, no more
    const cache = new SchemaCache({ maxEntries: 10, maxBytes: text * 20 * 4, maxPerTenant: 10 })
    const t = cache.forTenant('t')
    for (const n of [1, 2, 3, 4]) t.get(schema(n), OPTIONS)
    expect(cache.size).toBe(4)
    t.get(schema(5), OPTIONS)
    expect(cache.size).toBe(4)
    const big = { ...schema(6), description: 'x' }
    const once = t.get(big, OPTIONS)
    expect(t.get(big, OPTIONS)).not.toBe(once)
    expect(cache.size).toBe(4)
  })
})
