import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { open, readdir, readFile, rename, truncate, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { AppError } from '../../errors.ts'
import { CREATE_NEW } from '../../lib/atomic-file.ts'
import { StartupError } from '../../lib/startup-error.ts'

export type JournalLog = (
  level: 'info' | 'warn' | 'error',
  message: string,
  detail: Record<string, unknown>,
) => void

export interface JournalOptions {
  dir: string
  // <name>.json is the snapshot, <name>.<generation>.log the changes since it
  name: string
  // the whole state as JSON text in small pieces: joined, they are one JSON object whose first member
  // must be left out (the journal writes `{"log_from":<generation>,` before the first piece)
  snapshot: () => Iterable<string>
  log: JournalLog
  // compact once the logs since the snapshot are this many times its size (and at least minCompactBytes)
  compactRatio?: number
  minCompactBytes?: number
  // first wait before a failed flush is tried again (doubles up to 30 s)
  retryMs?: number
}

export interface JournalReader {
  // the snapshot document (undefined: none yet)
  snapshot(doc: Record<string, unknown> | undefined): void
  // one change, in the order it was made
  entry(entry: Record<string, unknown>): void
}

interface Waiter {
  resolve: () => void
  reject: (err: unknown) => void
}

const CHUNK_BYTES = 64 * 1024
// the snapshot writer gives the loop back at least this often (ms)
const SLICE_MS = 4
const MAX_RETRY_MS = 30_000

const logName = (name: string, gen: number) => `${name}.${gen}.log`

// An append-only log with snapshots: every change is one JSON line appended (and fsynced, group-committed)
// before the change's call resolves; compaction writes the whole state as a snapshot in small slices off
// the request path, then drops the logs it covers. Replaying the snapshot then the logs in order gives
// the state back, because each line sets a record to its value at that moment (last write wins): a
// snapshot taken while changes continue may hold a newer value, and the log lines after the cut-over
// bring every record to its final one.
export class Journal {
  #o: Required<JournalOptions>
  // the generation new lines go to, and its size; logs from #logFrom up to #gen are live
  #gen = 1
  #size = 0
  #logFrom = 1
  #logBytes = 0
  #snapshotBytes = 0
  #pending: string[] = []
  #waiters: Waiter[] = []
  #flushing: Promise<void> | undefined
  #retry: NodeJS.Timeout | undefined
  #retryMs: number
  #failing = false
  #compacting: Promise<void> | undefined
  #closed = false

  private constructor(options: JournalOptions) {
    this.#o = { compactRatio: 2, minCompactBytes: 1024 * 1024, retryMs: 1_000, ...options }
    this.#retryMs = this.#o.retryMs
  }

  // Reads the snapshot and replays the logs; a torn last line (a crash mid-write) is dropped and cut off.
  static async open(options: JournalOptions, reader: JournalReader): Promise<Journal> {
    const journal = new Journal(options)
    await journal.#replay(reader)
    return journal
  }

  get dirty(): boolean {
    return this.#pending.length > 0 || this.#flushing !== undefined
  }

  #path(file: string): string {
    return join(this.#o.dir, file)
  }

  async #replay(reader: JournalReader): Promise<void> {
    const snapPath = this.#path(`${this.#o.name}.json`)
    let doc: Record<string, unknown> | undefined
    try {
      const text = await readFile(snapPath, 'utf8')
      this.#snapshotBytes = Buffer.byteLength(text)
      doc = JSON.parse(text) as Record<string, unknown>
    } catch (err) {
      if (err instanceof SyntaxError) {
        throw new StartupError(
          `${snapPath} is damaged: it is not JSON (${err.message}). Restore it from a backup; the store does ` +
            'not start on a partial state.',
        )
      }
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
    reader.snapshot(doc)
    this.#logFrom = typeof doc?.log_from === 'number' ? doc.log_from : 1
    const pattern = new RegExp(`^${this.#o.name}\\.(\\d+)\\.log$`)
    const files = await readdir(this.#o.dir).catch(() => [] as string[])
    // a snapshot a crash interrupted before its rename: never read, removed
    for (const f of files)
      if (f.startsWith(`${this.#o.name}.json.`) && f.endsWith('.tmp'))
        await unlink(this.#path(f)).catch(() => {})
    const gens = files
      .map((f) => pattern.exec(f)?.[1])
      .filter((g) => g !== undefined)
      .map(Number)
      .sort((a, b) => a - b)
    for (const gen of gens) {
      // covered by the snapshot: left by a compaction that stopped before its clean-up
      if (gen < this.#logFrom) {
        await unlink(this.#path(logName(this.#o.name, gen))).catch(() => {})
        continue
      }
      this.#gen = gen
      this.#size = await this.#replayFile(gen, reader, gen === gens.at(-1))
      this.#logBytes += this.#size
    }
    this.#gen = Math.max(this.#gen, this.#logFrom)
    if (this.#gen !== gens.at(-1)) this.#size = 0
  }

  // returns the length of the file's complete lines
  async #replayFile(gen: number, reader: JournalReader, last: boolean): Promise<number> {
    const path = this.#path(logName(this.#o.name, gen))
    const buf = await readFile(path)
    let start = 0
    let lineNo = 0
    while (start < buf.length) {
      const end = buf.indexOf(0x0a, start)
      lineNo++
      if (end === -1) {
        // a line without its newline was being written when the process stopped: its call never resolved
        if (!last) throw new StartupError(`${path}: line ${lineNo} is incomplete; the store log is damaged`)
        this.#o.log('warn', 'dropped an incomplete last line of the store log', { file: path, line: lineNo })
        await truncate(path, start)
        return start
      }
      let entry: Record<string, unknown>
      try {
        entry = JSON.parse(buf.subarray(start, end).toString('utf8')) as Record<string, unknown>
      } catch {
        throw new StartupError(`${path}: line ${lineNo} is not valid JSON; the store log is damaged`)
      }
      reader.entry(entry)
      start = end + 1
    }
    return buf.length
  }

  // Durable once it resolves. Rejects (503 ERR_UNAVAILABLE) when the write failed: the change stays in
  // memory and pending, and is written by the next successful try.
  append(entry: Record<string, unknown>): Promise<void> {
    const promise = new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }))
    this.#pending.push(`${JSON.stringify(entry)}\n`)
    this.#kick()
    return promise
  }

  // Written with the next flush; nobody waits for it (counters flushed every few seconds).
  note(entry: Record<string, unknown>): void {
    this.#pending.push(`${JSON.stringify(entry)}\n`)
    this.#kick()
  }

  #kick(): void {
    if (this.#flushing || this.#retry) return
    this.#flushing = this.#flush().finally(() => {
      this.#flushing = undefined
      if (this.#pending.length > 0 && !this.#retry) this.#kick()
    })
  }

  // One group commit: everything pending, written at the end of the current log and fsynced. Writing at
  // an explicit offset (not O_APPEND) means a write that failed half-way is overwritten by the retry.
  async #flush(): Promise<void> {
    const lines = this.#pending
    const waiters = this.#waiters
    this.#pending = []
    this.#waiters = []
    const data = Buffer.from(lines.join(''))
    const path = this.#path(logName(this.#o.name, this.#gen))
    try {
      // never through a link: a symbolic link planted at the log's name fails the write, never redirects it
      const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o600)
      try {
        await handle.write(data, 0, data.length, this.#size)
        await handle.datasync()
      } finally {
        await handle.close()
      }
    } catch (err) {
      this.#pending = [...lines, ...this.#pending]
      if (!this.#failing)
        this.#o.log('error', 'could not write the store log; retrying', { file: path, err: String(err) })
      this.#failing = true
      const retryMs = this.#retryMs
      this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2)
      this.#retry = setTimeout(() => {
        this.#retry = undefined
        this.#kick()
      }, retryMs)
      this.#retry.unref()
      const refusal = new AppError(
        'ERR_UNAVAILABLE',
        'The change could not be saved yet; it is kept and retried. Try again shortly.',
        undefined,
        { 'retry-after': '1' },
      )
      for (const w of waiters) w.reject(Object.assign(refusal, { cause: err }))
      return
    }
    if (this.#failing) this.#o.log('info', 'the store log is writable again', { file: path })
    this.#failing = false
    this.#retryMs = this.#o.retryMs
    this.#size += data.length
    this.#logBytes += data.length
    for (const w of waiters) w.resolve()
    const threshold = Math.max(this.#o.minCompactBytes, this.#o.compactRatio * this.#snapshotBytes)
    if (!this.#compacting && !this.#closed && this.#logBytes > threshold) void this.compact()
  }

  // Writes a snapshot of the current state and drops the logs it covers. Safe at any time: new changes
  // go to the next generation from the cut-over on.
  compact(): Promise<void> {
    this.#compacting ??= this.#compact()
      .catch((err: unknown) =>
        this.#o.log('error', 'store compaction failed; the logs are kept', { err: String(err) }),
      )
      .finally(() => {
        this.#compacting = undefined
      })
    return this.#compacting
  }

  async #compact(): Promise<void> {
    // the cut-over happens between two flushes, at a line boundary
    while (this.#flushing) await this.#flushing
    const from = this.#gen + 1
    this.#gen = from
    this.#size = 0
    const covered = this.#logBytes
    const bytes = await this.#writeSnapshot(from)
    this.#snapshotBytes = bytes
    this.#logBytes -= covered
    const old = this.#logFrom
    this.#logFrom = from
    for (let gen = old; gen < from; gen++)
      await unlink(this.#path(logName(this.#o.name, gen))).catch(() => {})
  }

  async #writeSnapshot(logFrom: number): Promise<number> {
    const path = this.#path(`${this.#o.name}.json`)
    // a new file of a name no one can guess (a pid is 1 in every container), never through a link
    const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`
    const handle = await open(tmp, CREATE_NEW, 0o600)
    let total = 0
    try {
      let buf = `{"log_from":${logFrom},`
      let sliceStart = performance.now()
      for (const piece of this.#o.snapshot()) {
        buf += piece
        if (buf.length >= CHUNK_BYTES) {
          const data = Buffer.from(buf)
          total += data.length
          buf = ''
          await handle.write(data)
          sliceStart = performance.now()
        } else if (performance.now() - sliceStart > SLICE_MS) {
          await yieldToLoop()
          sliceStart = performance.now()
        }
      }
      const data = Buffer.from(buf)
      total += data.length
      await handle.write(data)
      await handle.sync()
    } catch (err) {
      await handle.close().catch(() => {})
      await unlink(tmp).catch(() => {})
      throw err
    }
    await handle.close()
    await rename(tmp, path)
    // the rename itself must survive a crash before the logs it replaces are dropped
    const dir = await open(this.#o.dir, 'r')
    await dir.sync().finally(() => dir.close())
    return total
  }

  // Writes what is pending (one try), then a snapshot if anything was logged since the last one.
  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#retry)
    this.#retry = undefined
    await this.#compacting
    await this.#flushing
    if (this.#pending.length > 0) await this.#flush()
    if (this.#pending.length > 0) {
      clearTimeout(this.#retry)
      throw new Error('the store log could not be written at close; the last changes are lost')
    }
    if (this.#logBytes > 0) await this.compact()
  }
}
