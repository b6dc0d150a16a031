import type { Cluster, Redis } from 'ioredis'
import { type IdempotencyRecord, type IdempotencyRef, keptBytes } from '../types.ts'
import { defineCommands, STORE_COMMANDS } from './commands.ts'

// Idempotency-Key records on Redis: SET NX PX takes a key for its first request, idempotency-keep.lua
// keeps the answer under the scope's byte bound. Keys share the scope's hash tag (one cluster slot):
//   <p>:idem:{<scope>}:<id> the record; <p>:idem:{<scope>}:kept and :bytes what the scope keeps.
// (Records of the layout before issue 27, <p>:idem:<id>, are no longer read; they expire within a TTL.)

export function defineIdempotency(client: Redis | Cluster): void {
  defineCommands(client, STORE_COMMANDS, ['anvilKeepIdempotent'])
}

export class RedisIdempotency {
  #client: Redis | Cluster
  #prefix: string
  #clock: () => number

  constructor(client: Redis | Cluster, prefix: string, clock: () => number = Date.now) {
    this.#client = client
    this.#prefix = prefix
    this.#clock = clock
  }

  #key(ref: IdempotencyRef, part: string): string {
    return `${this.#prefix}:idem:{${ref.scope}}:${part}`
  }

  // null: the record expired between the SET NX that failed and the GET (the caller tries again)
  async begin(
    ref: IdempotencyRef,
    fingerprint: string,
    lockMs: number,
  ): Promise<IdempotencyRecord | null | undefined> {
    const key = this.#key(ref, ref.id)
    const running = JSON.stringify({ fingerprint, state: 'running' } satisfies IdempotencyRecord)
    if ((await this.#client.set(key, running, 'PX', lockMs, 'NX')) === 'OK') return undefined
    const stored = await this.#client.get(key)
    return stored === null ? null : (JSON.parse(stored) as IdempotencyRecord)
  }

  async keep(
    ref: IdempotencyRef,
    record: IdempotencyRecord,
    ttlSeconds: number,
    maxBytes: number,
  ): Promise<void> {
    await this.#client.anvilKeepIdempotent(
      this.#key(ref, ref.id),
      this.#key(ref, 'kept'),
      this.#key(ref, 'bytes'),
      JSON.stringify(record),
      ttlSeconds * 1000,
      maxBytes,
      this.#clock(),
      keptBytes(ref, record),
    )
  }

  async release(ref: IdempotencyRef): Promise<void> {
    await this.#client.del(this.#key(ref, ref.id))
  }
}
