// Admission by memory: the off-heap bytes the tasks running on a pool hold (argon2's and scrypt's memory,
// allocated by OpenSSL outside the V8 heap, so no thread resource limit bounds it) stay within the pool's
// budget. A task that declares memory takes it before it runs and gives it back when it ends; one that
// does not fit waits, in its workspace's line, for up to its wait, then is refused (503 ERR_OVERLOADED with
// Retry-After). So many tenants asking for the maximum at once queue or are refused, and the process never
// allocates more than the budgets.
//
// Fair as the places are (admission.ts): memory that comes free goes to the first in line of the waiting
// workspace holding the least memory on the pool (ties: whoever waited longest), and only if that request
// fits: a smaller request behind it does not overtake it, so a stream of small hashes cannot starve a
// large one. A newcomer takes memory at once only when nobody waits.

interface Waiter {
  workspaceId: string
  bytes: number
  resolve(admitted: boolean): void
  timer: NodeJS.Timeout
  seq: number
}

interface Holder {
  held: number
  line: Waiter[]
}

export class MemoryGate {
  readonly budget: number
  #used = 0
  #waiting = 0
  #seq = 0
  #holders = new Map<string, Holder>()

  constructor(budgetBytes: number) {
    this.budget = budgetBytes
  }

  get used(): number {
    return this.#used
  }

  get waiting(): number {
    return this.#waiting
  }

  // workspaces holding or waiting for memory (0 when idle: nothing is kept per workspace)
  get tenants(): number {
    return this.#holders.size
  }

  // True at once, or a promise of whether the memory was granted within `waitMs`. A request larger than
  // the whole budget is refused at once: it could never run.
  acquire(workspaceId: string, bytes: number, waitMs: number): true | Promise<boolean> {
    if (bytes <= 0) return true
    if (bytes > this.budget) return Promise.resolve(false)
    const holder = this.#holder(workspaceId)
    if (this.#waiting === 0 && this.#used + bytes <= this.budget) {
      this.#grant(holder, bytes)
      return true
    }
    if (waitMs <= 0) {
      this.#forgetIfIdle(workspaceId, holder)
      return Promise.resolve(false)
    }
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        workspaceId,
        bytes,
        resolve,
        seq: this.#seq++,
        timer: setTimeout(() => {
          holder.line.splice(holder.line.indexOf(waiter), 1)
          this.#waiting--
          this.#forgetIfIdle(workspaceId, holder)
          // the line it headed may now let the next through
          this.#admitWaiting()
          resolve(false)
        }, waitMs),
      }
      holder.line.push(waiter)
      this.#waiting++
    })
  }

  release(workspaceId: string, bytes: number): void {
    if (bytes <= 0) return
    this.#used -= bytes
    const holder = this.#holders.get(workspaceId)
    if (holder) {
      holder.held -= bytes
      this.#forgetIfIdle(workspaceId, holder)
    }
    this.#admitWaiting()
  }

  #holder(workspaceId: string): Holder {
    let holder = this.#holders.get(workspaceId)
    if (!holder) {
      holder = { held: 0, line: [] }
      this.#holders.set(workspaceId, holder)
    }
    return holder
  }

  #grant(holder: Holder, bytes: number): void {
    holder.held += bytes
    this.#used += bytes
  }

  #forgetIfIdle(workspaceId: string, holder: Holder): void {
    if (holder.held === 0 && holder.line.length === 0) this.#holders.delete(workspaceId)
  }

  #admitWaiting(): void {
    while (this.#waiting > 0) {
      let next: Holder | undefined
      for (const holder of this.#holders.values()) {
        if (holder.line.length === 0) continue
        if (
          !next ||
          holder.held < next.held ||
          (holder.held === next.held && holder.line[0]!.seq < next.line[0]!.seq)
        ) {
          next = holder
        }
      }
      const waiter = next?.line[0]
      if (!next || !waiter || this.#used + waiter.bytes > this.budget) return
      next.line.shift()
      clearTimeout(waiter.timer)
      this.#waiting--
      this.#grant(next, waiter.bytes)
      waiter.resolve(true)
    }
  }
}
