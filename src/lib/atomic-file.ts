import { randomBytes } from 'node:crypto'
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'

// Write-then-rename with fsync: a crash leaves either the old file or the new one, never half of one. The
// temporary name is unique per call, so two writers of one path never share a temporary file.
export async function writeAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`
  const handle = await open(tmp, 'w', 0o600)
  try {
    await handle.writeFile(data)
    await handle.sync()
  } finally {
    await handle.close()
  }
  try {
    await rename(tmp, path)
  } catch (err) {
    await unlink(tmp).catch(() => {})
    throw err
  }
}

// The file's bytes, or undefined when there is no such file (any other error is thrown).
export async function readIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}

export async function readJsonIfExists<T>(path: string): Promise<T | undefined> {
  const bytes = await readIfExists(path)
  return bytes === undefined ? undefined : (JSON.parse(bytes.toString('utf8')) as T)
}

// Serialises writes of one file and coalesces bursts: at most one write in flight and one queued behind
// it, and the queued one always writes the latest state.
export class SnapshotWriter {
  #path: string
  #snapshot: () => string
  #inFlight: Promise<void> = Promise.resolve()
  #queued: Promise<void> | undefined

  constructor(path: string, snapshot: () => string) {
    this.#path = path
    this.#snapshot = snapshot
  }

  write(): Promise<void> {
    if (this.#queued) return this.#queued
    const next = this.#inFlight.then(() => {
      this.#queued = undefined
      return writeAtomic(this.#path, this.#snapshot())
    })
    this.#queued = next
    this.#inFlight = next.catch(() => {})
    return next
  }
}
