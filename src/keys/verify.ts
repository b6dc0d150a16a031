import type { LRUCache } from 'lru-cache'
import { boundedLru } from '../lib/bounded-lru.ts'
import { cidrMatcher } from '../lib/cidr.ts'
import type { KeyLookup, Store } from '../store/types.ts'
import { hashKey, KEY_LENGTH, parseKey } from './format.ts'
import type { InvalidKeyLimiter } from './invalid-key-limiter.ts'

export type KeyFailure = 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired'

export type KeyVerification =
  | { valid: true; lookup: KeyLookup; cached: boolean; allow: ((ip: string) => boolean) | null }
  | { valid: false; reason: KeyFailure; cached: boolean }
  // the address made too many invalid-key attempts: refused before any cache miss reaches the store
  | { valid: false; reason: 'throttled'; cached: false; retryAfter: number }

interface CacheEntry {
  lookup: KeyLookup
  // performance.now() when the store said so (monotonic: a test clock may stand still)
  at: number
  // when the key stops being valid (revoked or expired), ms since the epoch; Infinity: never. Parsed
  // once here, not per request
  revokedAt: number
  expiresAt: number
  // the answer of every cache hit, built once per entry (callers only read it)
  hit: KeyVerification
}

const MISSING: KeyVerification = Object.freeze({ valid: false, reason: 'missing', cached: false })

const instant = (iso: string | null) => (iso ? Date.parse(iso) : Number.POSITIVE_INFINITY)

export interface KeyVerifierOptions {
  cacheSize: number
  cacheTtlMs: number
  // unknown (checksum-valid) keys, in a cache of their own so a flood of them never evicts a real key
  negativeCacheSize?: number
  negativeCacheTtlMs?: number
  // invalid-key attempts per address; without it, nothing is limited (unit tests)
  limiter?: InvalidKeyLimiter
  clock?: () => number
}

// Revocation reaches every gateway within this long. While the store cannot promise that its
// invalidation events arrive (the Redis subscription is down or not yet confirmed), a cached key
// older than this is verified again against the store.
export const UNCONFIRMED_CACHE_MS = 1_000

// format+checksum → in-process caches (real keys; unknown keys apart) → store. Outcomes are values;
// only store faults throw.
export class KeyVerifier {
  #store: Store
  #cache: LRUCache<string, CacheEntry>
  #unknown: LRUCache<string, true>
  #limiter: InvalidKeyLimiter | undefined
  #clock: () => number
  #unsubscribe: () => void

  constructor(store: Store, options: KeyVerifierOptions) {
    this.#store = store
    this.#clock = options.clock ?? Date.now
    this.#limiter = options.limiter
    this.#cache = boundedLru(options.cacheSize, { ttl: options.cacheTtlMs, ttlAutopurge: false })
    this.#unknown = boundedLru(options.negativeCacheSize ?? 10_000, {
      ttl: options.negativeCacheTtlMs ?? 5_000,
      ttlAutopurge: false,
    })
    this.#unsubscribe = store.subscribe((event) => {
      if (event.type === 'key') {
        this.#cache.delete(event.hash)
        this.#unknown.delete(event.hash)
      } else if (event.type === 'workspace') {
        this.#cache.clear()
      } else {
        this.#cache.clear()
        this.#unknown.clear()
      }
    })
  }

  // The answer when it needs no store call (a cache hit, a malformed or known-unknown key, a throttled
  // address), synchronously: the request path then costs no promise. undefined: ask verify().
  // `ip`: the client address, for the invalid-key limiter (none: not limited)
  verifyNow(raw: string | undefined, ip?: string): KeyVerification | undefined {
    if (!raw) return MISSING
    const now = this.#clock()
    // the cache first: it holds only keys the store knew, whose format was checked then, so a cached key
    // skips the format and checksum check (a regular expression and a CRC-32 per request); only a string of
    // a key's length is hashed to look for one
    const hash = raw.length === KEY_LENGTH ? hashKey(raw) : undefined
    const held = hash === undefined ? undefined : this.#cache.get(hash)
    if (hash === undefined || (held === undefined && !parseKey(raw))) {
      return this.#throttled(ip, now) ?? this.#failed('malformed', false, ip, now)
    }
    if (held && this.#trusted(held)) {
      const judged = this.#judge(held, true, ip, now)
      // a revoked or expired key from an address over the limit is refused like any other bad key
      return judged.valid ? judged : (this.#throttled(ip, now) ?? judged)
    }
    if (!held) {
      // a real key being verified again (channel unconfirmed) is not an invalid-key attempt
      const throttled = this.#throttled(ip, now)
      if (this.#unknown.has(hash)) return throttled ?? this.#failed('unknown', true, ip, now)
      // over the limit: a key no cache holds is looked up only within the address's allowance
      if (throttled && !this.#limiter!.takeLookup(ip!, hash, now)) return throttled
    }
    return undefined
  }

  // verifyNow, or the store when it cannot answer (only store faults throw)
  async verify(raw: string | undefined, ip?: string): Promise<KeyVerification> {
    const known = this.verifyNow(raw, ip)
    if (known) return known
    // verifyNow answers every absent or malformed key: this one is well-formed and needs the store
    const hash = hashKey(raw!)
    const lookup = await this.#store.lookupKey(hash)
    const now = this.#clock()
    // an address over the limit spent one of its look-ups (verifyNow took it): a key that turns out
    // invalid is answered as throttled, a valid one is given back
    const throttled = this.#throttled(ip, now)
    if (!lookup) {
      this.#unknown.set(hash, true)
      return throttled ?? this.#failed('unknown', false, ip, now)
    }
    const cidrs = lookup.key.allowed_cidrs
    const allow = cidrs && cidrs.length > 0 ? cidrMatcher(cidrs) : null
    const entry: CacheEntry = {
      lookup,
      at: performance.now(),
      revokedAt: instant(lookup.key.revoked_at),
      expiresAt: instant(lookup.key.expires_at),
      hit: Object.freeze({ valid: true, lookup, cached: true, allow }),
    }
    this.#cache.set(hash, entry)
    const judged = this.#judge(entry, false, ip, now)
    if (throttled && judged.valid) this.#limiter!.giveBack(ip!, hash, now)
    return throttled && !judged.valid ? throttled : judged
  }

  #judge(entry: CacheEntry, cached: boolean, ip: string | undefined, now: number): KeyVerification {
    if (entry.revokedAt <= now) return this.#failed('revoked', cached, ip, now)
    if (entry.expiresAt <= now) return this.#failed('expired', cached, ip, now)
    if (cached) return entry.hit
    const hit = entry.hit as Extract<KeyVerification, { valid: true }>
    return { valid: true, lookup: hit.lookup, cached: false, allow: hit.allow }
  }

  // Scope: the key's endpoint families and source-address allowlist (the matcher verify returned).
  permits(verified: Extract<KeyVerification, { valid: true }>, family: string, ip: string): boolean {
    const families = verified.lookup.key.families
    if (families && families.length > 0 && !(families as readonly string[]).includes(family)) return false
    return verified.allow === null || verified.allow(ip)
  }

  close(): void {
    this.#unsubscribe()
    this.#cache.clear()
    this.#unknown.clear()
  }

  #trusted(entry: CacheEntry): boolean {
    return performance.now() - entry.at <= UNCONFIRMED_CACHE_MS || this.#store.invalidationLive()
  }

  #throttled(ip: string | undefined, now: number): KeyVerification | undefined {
    const wait = ip === undefined || !this.#limiter ? 0 : this.#limiter.blockedFor(ip, now)
    return wait > 0 ? { valid: false, reason: 'throttled', cached: false, retryAfter: wait } : undefined
  }

  #failed(reason: KeyFailure, cached: boolean, ip: string | undefined, now: number): KeyVerification {
    if (ip !== undefined) this.#limiter?.failed(ip, now)
    return { valid: false, reason, cached }
  }
}
