import type { LRUCache } from 'lru-cache'
import { addressBucket } from '../lib/address-bucket.ts'
import { boundedLru } from '../lib/bounded-lru.ts'

export interface InvalidKeyLimiterOptions {
  // invalid-key attempts one address may make per window before it is refused
  max: number
  windowMs: number
  // addresses tracked at once: memory stays bounded however many addresses a flood comes from
  addresses: number
  // past `max`, store look-ups an address may still spend per window on keys that turn out invalid (a
  // look-up that finds a valid key costs nothing): see takeLookup
  lookups: number
}

interface Window {
  count: number
  resetAt: number
  // past the limit: the keys (fingerprints) whose look-ups were taken this window and found nothing valid
  // (or are still under way)
  spent?: number[]
}

// 42 bits of a key's hash: enough to tell an address's few keys apart, 8 bytes to keep
function fingerprint(hash: string): number {
  let n = 0
  for (let i = 0; i < 6; i++) n = n * 128 + hash.charCodeAt(i)
  return n
}

// Invalid-key attempts per client address (an IPv6 client by its /64), counted in this process only:
// it never touches the store, so a flood of bad keys cannot turn into store traffic. Per gateway: N
// gateways behind a balancer admit up to N × max per window from one address.
//
// An address over the limit is refused without a store look-up for any key this gateway knows to be bad
// (its negative cache, or a cached revoked or expired key), and a key it has cached as valid is served.
// A key it does not know yet may still be looked up, so that one misconfigured script behind an office
// NAT does not lock its colleagues out (issue 27): a look-up that finds a valid key is free; one that
// finds nothing spends one of `lookups` per window, and a key already spent on costs nothing again (a
// script repeating its bad key, once the negative cache forgets it, spends one). A flood of distinct
// random keys spends them all, and then no unknown key is looked up from that address until the window
// ends: the store stays protected (docs/decisions.md, Keys).
export class InvalidKeyLimiter {
  #max: number
  #windowMs: number
  #lookups: number
  #windows: LRUCache<string, Window>

  constructor(options: InvalidKeyLimiterOptions) {
    this.#max = options.max
    this.#windowMs = options.windowMs
    this.#lookups = options.lookups
    this.#windows = boundedLru(options.addresses)
  }

  #blocked(ip: string, now: number): Window | undefined {
    const w = this.#windows.peek(addressBucket(ip))
    return !w || w.resetAt <= now || w.count < this.#max ? undefined : w
  }

  // seconds until the address may try again, or 0 when it may try now
  blockedFor(ip: string, now: number): number {
    const w = this.#blocked(ip, now)
    return w ? Math.max(1, Math.ceil((w.resetAt - now) / 1000)) : 0
  }

  // From an address over the limit, a look-up of a key no cache of this gateway holds: takes one of the
  // address's look-ups for it, before the look-up (parallel requests cannot all pass one check), or false
  // when none is left. A key already taken this window costs nothing again.
  takeLookup(ip: string, hash: string, now: number): boolean {
    const w = this.#blocked(ip, now)
    if (!w) return true
    const print = fingerprint(hash)
    w.spent ??= []
    if (w.spent.includes(print)) return true
    if (w.spent.length >= this.#lookups) return false
    w.spent.push(print)
    return true
  }

  // the look-up found a valid key: it costs the address nothing
  giveBack(ip: string, hash: string, now: number): void {
    const spent = this.#blocked(ip, now)?.spent
    const at = spent?.indexOf(fingerprint(hash)) ?? -1
    if (at !== -1) spent!.splice(at, 1)
  }

  failed(ip: string, now: number): void {
    const bucket = addressBucket(ip)
    const w = this.#windows.get(bucket)
    if (!w || w.resetAt <= now) this.#windows.set(bucket, { count: 1, resetAt: now + this.#windowMs })
    else w.count++
  }
}
