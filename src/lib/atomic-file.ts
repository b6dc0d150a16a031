import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'
import { StartupError } from './startup-error.ts'

// A new file, created for writing, never through a link: O_EXCL fails on anything already at the path
// (a symbolic link included) and O_NOFOLLOW on a link; the mode is set at creation.
export const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW

// Write-then-rename with fsync: a crash leaves either the old file or the new one, never half of one. The
// temporary name is unique per call, so two writers of one path never share a temporary file; it is created
// new (CREATE_NEW, mode 0600), and the rename replaces whatever is at `path`, a link included, rather than
// writing through it.
export async function writeAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`
  const handle = await open(tmp, CREATE_NEW, 0o600)
  try {
    await handle.writeFile(data)
    await handle.sync()
  } catch (err) {
    await handle.close().catch(() => {})
    await unlink(tmp).catch(() => {})
    throw err
  }
  await handle.close()
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

// The file's JSON, or undefined when there is no such file; a file that is not JSON is a StartupError naming
// it (`advice`: what the operator can do about it).
export async function readJsonIfExists<T>(path: string, advice = ''): Promise<T | undefined> {
  const bytes = await readIfExists(path)
  if (bytes === undefined) return undefined
  try {
    return JSON.parse(bytes.toString('utf8')) as T
  } catch (err) {
    throw new StartupError(
      `${path} is damaged: it is not JSON (${(err as Error).message}).${advice && ` ${advice}`}`,
    )
  }
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
