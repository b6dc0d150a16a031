import { LRUCache } from 'lru-cache'
import { addressBucket } from '../lib/address-bucket.ts'

export interface InvalidKeyLimiterOptions {
  // invalid-key attempts one address may make per window before it is refused
  max: number
  windowMs: number
  // addresses tracked at once: memory stays bounded however many addresses a flood comes from
  addresses: number
}

interface Window {
  count: number
  resetAt: number
}

// Invalid-key attempts per client address (an IPv6 client by its /64), counted in this process only:
// it never touches the store, so a flood of bad keys cannot turn into store traffic. Per gateway: N
// gateways behind a balancer admit up to N × max per window from one address.
export class InvalidKeyLimiter {
  #max: number
  #windowMs: number
  #windows: LRUCache<string, Window>

  constructor(options: InvalidKeyLimiterOptions) {
    this.#max = options.max
    this.#windowMs = options.windowMs
    this.#windows = new LRUCache({ max: options.addresses })
  }

  // seconds until the address may try again, or 0 when it may try now
  blockedFor(ip: string, now: number): number {
    const w = this.#windows.peek(addressBucket(ip))
    if (!w || w.resetAt <= now || w.count < this.#max) return 0
    return Math.max(1, Math.ceil((w.resetAt - now) / 1000))
  }

  failed(ip: string, now: number): void {
    const bucket = addressBucket(ip)
    const w = this.#windows.get(bucket)
    if (!w || w.resetAt <= now) this.#windows.set(bucket, { count: 1, resetAt: now + this.#windowMs })
    else w.count++
  }
}
