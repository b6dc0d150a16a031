import { mkdir, readdir, rm, stat, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { readIfExists, writeAtomic } from '../../lib/atomic-file.ts'
import type { JobMeta } from '../types.ts'

// The embedded jobs on disk, three files per job under DATA_DIR/jobs: <id>.json (the record),
// <id>.input (the submitted body, until the job finishes) and <id>.result (the data, as JSON text).
// Writes for one job are serialised, so its files only ever move forward.
export class JobFiles {
  #dir: string
  #ready: Promise<unknown> | undefined
  #chains = new Map<string, Promise<void>>()

  constructor(dir: string) {
    this.#dir = dir
  }

  #path(id: string, kind: 'json' | 'input' | 'result'): string {
    return join(this.#dir, `${id}.${kind}`)
  }

  // runs a job's writes one after another; the chain is dropped once it is idle
  #serial(id: string, write: () => Promise<void>): Promise<void> {
    this.#ready ??= mkdir(this.#dir, { recursive: true, mode: 0o700 })
    const ready = this.#ready
    const next = (this.#chains.get(id) ?? Promise.resolve()).then(() => ready).then(write)
    const settled = next.catch(() => {})
    this.#chains.set(id, settled)
    void settled.then(() => {
      if (this.#chains.get(id) === settled) this.#chains.delete(id)
    })
    return next
  }

  // every record on disk; leftovers of interrupted writes are removed
  async load(): Promise<JobMeta[]> {
    let names: string[]
    try {
      names = await readdir(this.#dir)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw err
    }
    const metas: JobMeta[] = []
    for (const name of names) {
      if (name.endsWith('.tmp')) await unlink(join(this.#dir, name)).catch(() => {})
      if (!name.endsWith('.json')) continue
      const text = await readIfExists(join(this.#dir, name))
      try {
        if (text) metas.push(JSON.parse(text.toString('utf8')) as JobMeta)
      } catch {
        // not one of ours (writes are atomic): left alone rather than stopping the boot
      }
    }
    return metas
  }

  writeMeta(meta: JobMeta): Promise<void> {
    const text = JSON.stringify(meta)
    return this.#serial(meta.id, () => writeAtomic(this.#path(meta.id, 'json'), text))
  }

  writeInput(id: string, bytes: Uint8Array): Promise<void> {
    return this.#serial(id, () => writeAtomic(this.#path(id, 'input'), bytes))
  }

  writeResult(id: string, text: string): Promise<void> {
    return this.#serial(id, () => writeAtomic(this.#path(id, 'result'), text))
  }

  async readInput(id: string): Promise<Uint8Array> {
    const bytes = await readIfExists(this.#path(id, 'input'))
    if (!bytes) throw new Error(`the input of job ${id} is missing`)
    return bytes
  }

  // the size of a job's input or result file; 0 when there is none
  async bytes(id: string, kind: 'input' | 'result'): Promise<number> {
    try {
      return (await stat(this.#path(id, kind))).size
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0
      throw err
    }
  }

  async readResult(id: string): Promise<string | undefined> {
    return (await readIfExists(this.#path(id, 'result')))?.toString('utf8')
  }

  removeInput(id: string): Promise<void> {
    return this.#serial(id, () => rm(this.#path(id, 'input'), { force: true }))
  }

  remove(id: string): Promise<void> {
    return this.#serial(id, async () => {
      // the record last: a crash part-way leaves a record whose other files are simply missing
      await rm(this.#path(id, 'input'), { force: true })
      await rm(this.#path(id, 'result'), { force: true })
      await rm(this.#path(id, 'json'), { force: true })
    })
  }

  // resolves once every write begun so far has landed
  async idle(): Promise<void> {
    await Promise.all(this.#chains.values())
  }
}
