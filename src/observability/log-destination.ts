import { write } from 'node:fs'

export interface DestinationOptions {
  // a batch is written once this many characters are pending (or FLUSH_MS after its first line)
  flushAt?: number
  flushMs?: number
  // pending characters kept while the reader is slower than the process; past it lines are dropped (and
  // counted) rather than held without bound
  maxPending?: number
}

const FLUSH_AT = 64 * 1024
const FLUSH_MS = 1_000
const MAX_PENDING = 64 * 1024 * 1024
const RETRY_MS = 10

// Where every log line of a process goes (stdout): pino's destination, asynchronous and batched. A line is
// kept as the string pino made and a batch is joined, encoded to UTF-8 once and written with one write(2)
// when it reaches `flushAt` characters, a second after its first line, or at shutdown (drain). Not
// sonic-boom (pino.destination), which does the same but measures the UTF-8 length of the whole pending
// batch again on every line (`Buffer.byteLength(bufs[bufs.length - 1])` in its write): with one access
// line per request that was a scan of 2-16 KB per request, ~4 µs of a small request's CPU (docs/decisions.md,
// "Logs"). Lines are written in the order they were logged.
export class LogDestination {
  readonly #fd: number
  readonly #flushAt: number
  readonly #flushMs: number
  readonly #maxPending: number
  #pending: string[] = []
  #size = 0
  #writing = false
  #dropped = 0
  #timer: NodeJS.Timeout | undefined
  // drain() waiters, told each time a write ends
  #drained: (() => void)[] = []

  constructor(fd: number, options: DestinationOptions = {}) {
    this.#fd = fd
    this.#flushAt = options.flushAt ?? FLUSH_AT
    this.#flushMs = options.flushMs ?? FLUSH_MS
    this.#maxPending = options.maxPending ?? MAX_PENDING
  }

  write(line: string): boolean {
    if (this.#size + line.length > this.#maxPending) {
      this.#dropped++
      return false
    }
    this.#pending.push(line)
    this.#size += line.length
    if (this.#size >= this.#flushAt) this.#flush()
    else this.#timer ??= setTimeout(() => this.#flush(), this.#flushMs).unref()
    return true
  }

  // Everything logged so far, written (shutdown): after the batch already being written, the rest, in order.
  async drain(): Promise<void> {
    this.#clearTimer()
    while (this.#writing || this.#size > 0 || this.#dropped > 0) {
      if (!this.#writing) this.#flush()
      await new Promise<void>((resolve) => this.#drained.push(resolve))
    }
  }

  #flush(): void {
    this.#clearTimer()
    if (this.#writing) return
    const data = this.#take()
    if (data === undefined) return
    this.#writing = true
    this.#writeFrom(data, 0)
  }

  #writeFrom(data: Buffer, offset: number): void {
    write(this.#fd, data, offset, data.length - offset, null, (err, written) => {
      if (err) {
        if (err.code === 'EAGAIN') {
          setTimeout(() => this.#writeFrom(data, offset), RETRY_MS)
          return
        }
        // stdout closed (the reader went away): nothing can be written any more, and nothing else to do
        this.#writing = false
        this.#size = 0
        this.#pending = []
        this.#wake()
        return
      }
      if (offset + written < data.length) {
        this.#writeFrom(data, offset + written)
        return
      }
      this.#writing = false
      this.#wake()
      if (this.#size >= this.#flushAt) this.#flush()
      else if (this.#size > 0) this.#timer ??= setTimeout(() => this.#flush(), this.#flushMs).unref()
    })
  }

  #wake(): void {
    const waiting = this.#drained
    this.#drained = []
    for (const resolve of waiting) resolve()
  }

  // the pending lines as one buffer (with a line saying how many were dropped, if any), or undefined
  #take(): Buffer | undefined {
    if (this.#dropped > 0) {
      this.#pending.push(
        `{"level":40,"time":${Date.now()},"msg":"log lines dropped: stdout was not read fast enough","dropped":${this.#dropped}}\n`,
      )
      this.#dropped = 0
    }
    if (this.#pending.length === 0) return undefined
    const data = Buffer.from(this.#pending.join(''), 'utf8')
    this.#pending = []
    this.#size = 0
    return data
  }

  #clearTimer(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
  }
}
