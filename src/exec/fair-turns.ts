// Which task goes to a pool's threads next. Admission (admission.ts) bounds how many tasks a pool accepts
// and shares those places fairly; this bounds how many it hands to Piscina at once (its thread count) and
// holds the rest in one line per workspace, served round-robin: a place that comes free goes to the next
// workspace in turn with a task waiting, so one tenant's 64 queued tasks cannot stand between another
// tenant's task and the next free thread (Piscina's own queue is first come, first served across all).

interface Turn {
  resolve(): void
  reject(err: Error): void
  signal: AbortSignal | undefined
  onAbort: () => void
}

function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The task was aborted before it reached a thread'), {
    name: 'AbortError',
    cause: signal.reason,
  })
}

export class FairTurns {
  readonly threads: number
  #running = 0
  #waiting = 0
  // one line per workspace with a task waiting; the map's order is the rotation (served: to the back)
  #lines = new Map<string, Turn[]>()

  constructor(threads: number) {
    this.threads = Math.max(1, threads)
  }

  // tasks handed to Piscina and not yet finished
  get running(): number {
    return this.#running
  }

  get waiting(): number {
    return this.#waiting
  }

  // Resolves when the task may go to Piscina (at once when a thread is free and nobody waits); rejects with
  // an AbortError when `signal` aborts first. Every resolved turn is given back with release().
  acquire(workspaceId: string, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortError(signal))
    if (this.#waiting === 0 && this.#running < this.threads) {
      this.#running++
      return Promise.resolve()
    }
    return new Promise<void>((resolve, reject) => {
      const turn: Turn = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.#leave(workspaceId, turn)
          reject(abortError(signal!))
        },
      }
      signal?.addEventListener('abort', turn.onAbort, { once: true })
      const line = this.#lines.get(workspaceId)
      if (line) line.push(turn)
      else this.#lines.set(workspaceId, [turn])
      this.#waiting++
    })
  }

  release(): void {
    this.#running--
    this.#next()
  }

  #leave(workspaceId: string, turn: Turn): void {
    const line = this.#lines.get(workspaceId)
    const at = line?.indexOf(turn) ?? -1
    if (!line || at < 0) return
    line.splice(at, 1)
    this.#waiting--
    if (line.length === 0) this.#lines.delete(workspaceId)
  }

  // Round-robin: the first workspace in the rotation gives its oldest task, then goes to the back.
  #next(): void {
    while (this.#running < this.threads && this.#waiting > 0) {
      const [workspaceId, line] = this.#lines.entries().next().value as [string, Turn[]]
      const turn = line.shift()!
      this.#waiting--
      this.#lines.delete(workspaceId)
      if (line.length > 0) this.#lines.set(workspaceId, line)
      turn.signal?.removeEventListener('abort', turn.onAbort)
      this.#running++
      turn.resolve()
    }
  }
}
