import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { type CompiledSchema, type CompileOptions, compile } from './compile.ts'
import type { CompiledSchemas } from './validate.ts'

// Compiled schemas kept between requests, per tenant, keyed by the SHA-256 of the schema's JSON text and
// the options. It lives where compiling happens, on each pool thread (one per thread: a compiled schema is
// closures, which cannot cross threads), so a tenant's repeated schema compiles once per thread.
// Bounded three ways: entries, approximate bytes (the schema text times COMPILED_PER_BYTE, what its
// closures and tables weigh), and entries per tenant (a tenant sending a new schema every time evicts its
// own, not others').

export interface SchemaCacheBounds {
  maxEntries: number
  maxBytes: number
  maxPerTenant: number
}

// measured: the benchmark's order schema (1408 bytes of text) weighs 28.8 KB on the heap compiled, the
// parsed schema included (1000 compiled, heap used before and after a full GC)
const COMPILED_PER_BYTE = 20

export class SchemaCache {
  private readonly entries: LRUCache<string, CompiledSchema>
  private readonly perTenant = new Map<string, number>()
  private readonly bounds: SchemaCacheBounds

  constructor(bounds: SchemaCacheBounds) {
    this.bounds = bounds
    this.entries = new LRUCache<string, CompiledSchema>({
      max: bounds.maxEntries,
      maxSize: bounds.maxBytes,
      sizeCalculation: (entry) => entry.bytes ?? 1,
      dispose: (_entry, key) => this.count(tenantOf(key), -1),
    })
  }

  get size(): number {
    return this.entries.size
  }

  // The compiled schemas one tenant's requests use.
  forTenant(tenant: string): CompiledSchemas {
    return { get: (schema, options) => this.get(tenant, schema, options) }
  }

  private get(tenant: string, schema: unknown, options: CompileOptions): CompiledSchema {
    let text: string
    try {
      text = JSON.stringify(schema) ?? ''
    } catch {
      // a `const` or `enum` value too deep for JSON.stringify's recursion: compiled, not kept
      return compile(schema, options)
    }
    const digest = createHash('sha256')
      .update(`${options.formatAssertion ? 1 : 0}${options.dialect ?? ''}\n${text}`)
      .digest('base64url')
    const key = `${tenant}\u0000${digest}`
    const known = this.entries.get(key)
    if (known !== undefined) return known
    const compiled = compile(schema, options)
    const bytes = text.length * COMPILED_PER_BYTE
    // a schema too large to keep is compiled for this request only
    if (bytes > this.bounds.maxBytes / 4) return compiled
    if ((this.perTenant.get(tenant) ?? 0) >= this.bounds.maxPerTenant) this.evictOldest(tenant)
    compiled.bytes = bytes
    this.entries.set(key, compiled)
    this.count(tenant, 1)
    return compiled
  }

  private count(tenant: string, delta: number): void {
    const n = (this.perTenant.get(tenant) ?? 0) + delta
    if (n <= 0) this.perTenant.delete(tenant)
    else this.perTenant.set(tenant, n)
  }

  // the tenant's least recently used entry (the cache is small: a scan from the cold end)
  private evictOldest(tenant: string): void {
    for (const key of this.entries.rkeys()) {
      if (tenantOf(key) === tenant) {
        this.entries.delete(key)
        return
      }
    }
  }
}

function tenantOf(key: string): string {
  return key.slice(0, key.indexOf('\u0000'))
}
