import type { AccountStore } from './store/types.ts'

// "Last used" for API keys. The gateway's hot path only sets a map entry; the map is written to the
// account store every few seconds (one call per flush, however many requests), and reads merge in
// what has not been flushed yet so the console is never behind this process.
export class KeyActivity {
  #accounts: AccountStore
  #pending = new Map<string, number>()
  #timer: NodeJS.Timeout
  #flushing: Promise<void> = Promise.resolve()

  constructor(accounts: AccountStore, flushMs = 5_000) {
    this.#accounts = accounts
    this.#timer = setInterval(() => void this.flush(), flushMs)
    this.#timer.unref()
  }

  touch(keyId: string, at: number): void {
    this.#pending.set(keyId, at)
  }

  flush(): Promise<void> {
    if (this.#pending.size === 0) return this.#flushing
    const batch = this.#pending
    this.#pending = new Map()
    this.#flushing = this.#flushing
      .then(() => this.#accounts.recordKeyUse(batch))
      // the store was unreachable: keep the times for the next flush rather than lose them
      .catch(() => {
        for (const [id, at] of batch) if (at > (this.#pending.get(id) ?? 0)) this.#pending.set(id, at)
      })
    return this.#flushing
  }

  async lastUsed(keyIds: readonly string[]): Promise<Map<string, number>> {
    const stored = await this.#accounts.keyLastUsed(keyIds)
    for (const id of keyIds) {
      const pending = this.#pending.get(id)
      if (pending !== undefined && pending > (stored.get(id) ?? 0)) stored.set(id, pending)
    }
    return stored
  }

  // keys deleted: their times go, pending or stored
  async forget(keyIds: readonly string[]): Promise<void> {
    for (const id of keyIds) this.#pending.delete(id)
    await this.#accounts.forgetKeyUse(keyIds)
  }

  async close(): Promise<void> {
    clearInterval(this.#timer)
    await this.flush()
  }
}
