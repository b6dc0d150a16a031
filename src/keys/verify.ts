import { LRUCache } from 'lru-cache'
import type { KeyLookup, Store } from '../store/types.ts'
import { cidrMatcher } from './cidr.ts'
import { hashKey, parseKey } from './format.ts'

export type KeyFailure = 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired'

export type KeyVerification =
  | { valid: true; lookup: KeyLookup; cached: boolean; allow: ((ip: string) => boolean) | null }
  | { valid: false; reason: KeyFailure; cached: boolean }

interface CacheEntry {
  lookup: KeyLookup | null
  allow: ((ip: string) => boolean) | null
}

export interface KeyVerifierOptions {
  cacheSize: number
  cacheTtlMs: number
  clock?: () => number
}

// format+checksum → in-process LRU → store. Outcomes are values; only store faults throw.
export class KeyVerifier {
  #store: Store
  #cache: LRUCache<string, CacheEntry>
  #clock: () => number
  #unsubscribe: () => void

  constructor(store: Store, options: KeyVerifierOptions) {
    this.#store = store
    this.#clock = options.clock ?? Date.now
    this.#cache = new LRUCache({ max: options.cacheSize, ttl: options.cacheTtlMs, ttlAutopurge: false })
    this.#unsubscribe = store.subscribe((event) => {
      if (event.type === 'key') this.#cache.delete(event.hash)
      else this.#cache.clear()
    })
  }

  async verify(raw: string | undefined): Promise<KeyVerification> {
    if (!raw) return { valid: false, reason: 'missing', cached: false }
    if (!parseKey(raw)) return { valid: false, reason: 'malformed', cached: false }
    const hash = hashKey(raw)
    let entry = this.#cache.get(hash)
    const cached = entry !== undefined
    if (!entry) {
      const lookup = (await this.#store.lookupKey(hash)) ?? null
      const cidrs = lookup?.key.allowed_cidrs
      entry = { lookup, allow: cidrs && cidrs.length > 0 ? cidrMatcher(cidrs) : null }
      this.#cache.set(hash, entry)
    }
    const lookup = entry.lookup
    if (!lookup) return { valid: false, reason: 'unknown', cached }
    const now = this.#clock()
    if (lookup.key.revoked_at && Date.parse(lookup.key.revoked_at) <= now) {
      return { valid: false, reason: 'revoked', cached }
    }
    if (lookup.key.expires_at && Date.parse(lookup.key.expires_at) <= now) {
      return { valid: false, reason: 'expired', cached }
    }
    return { valid: true, lookup, cached, allow: entry.allow }
  }

  // Scope: the key's endpoint families and source-address allowlist (the matcher verify returned).
  permits(verified: Extract<KeyVerification, { valid: true }>, family: string, ip: string): boolean {
    const families = verified.lookup.key.families
    if (families && families.length > 0 && !families.includes(family)) return false
    return verified.allow === null || verified.allow(ip)
  }

  close(): void {
    this.#unsubscribe()
    this.#cache.clear()
  }
}
