import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

// What reaches the disk before a change is acknowledged, observed: every open, write, fsync, fdatasync,
// rename and unlink of node:fs/promises made by the code under test is recorded (after it completes) by
// file name, in order, while the real calls do the work. Issue 36: removing the journal's fdatasync passed
// every test; a crash would then lose changes already acknowledged.
const events: string[] = []
const name = (path: unknown) => basename(String(path))

vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>()
  const watched = (handle: import('node:fs/promises').FileHandle, path: string) =>
    new Proxy(handle, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target)
        if (typeof value !== 'function') return value
        if (!['write', 'writeFile', 'sync', 'datasync'].includes(String(prop))) return value.bind(target)
        return async (...args: unknown[]) => {
          const result = await value.apply(target, args)
          events.push(`${String(prop)} ${name(path)}`)
          return result
        }
      },
    })
  return {
    ...fs,
    open: async (path: string, ...rest: unknown[]) =>
      watched(
        await (fs.open as (...a: unknown[]) => Promise<import('node:fs/promises').FileHandle>)(path, ...rest),
        path,
      ),
    rename: async (from: string, to: string) => {
      await fs.rename(from, to)
      events.push(`rename ${name(from).replace(/\.[0-9a-f]{8}\.tmp$/, '.tmp')} ${name(to)}`)
    },
    unlink: async (path: string) => {
      await fs.unlink(path)
      events.push(`unlink ${name(path)}`)
    },
  }
})

const { Journal } = await import('../../src/store/memory/journal.ts')
const { writeAtomic } = await import('../../src/lib/atomic-file.ts')

// the events as recorded, a snapshot's random temporary name as `<name>.tmp`
const seen = () => events.map((e) => e.replace(/\.[0-9a-f]{8}\.tmp$/, '.tmp'))

describe('fsync, observed', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'anvil-fsync-'))
    events.length = 0
  })
  afterEach(() => rm(dir, { recursive: true, force: true }))

  const open = () =>
    Journal.open(
      { dir, name: 'store', snapshot: () => ['"records":[1,2,3]}'], log: () => {}, minCompactBytes: 1e9 },
      { snapshot: () => {}, entry: () => {} },
    )

  it("the store log: a change's line is written and fdatasynced before its call resolves", async () => {
    const journal = await open()
    events.length = 0
    await journal.append({ t: 'workspace', v: { id: 'ws_1' } })
    events.push('acknowledged')
    expect(seen()).toEqual(['write store.1.log', 'datasync store.1.log', 'acknowledged'])
    await journal.close()
  })

  it('the snapshot: written, fsynced, renamed over store.json, the directory fsynced, then the logs it covers dropped', async () => {
    const journal = await open()
    await journal.append({ t: 'workspace', v: { id: 'ws_1' } })
    events.length = 0
    await journal.compact()
    expect(seen()).toEqual([
      'write store.json.tmp',
      'sync store.json.tmp',
      'rename store.json.tmp store.json',
      `sync ${basename(dir)}`,
      'unlink store.1.log',
    ])
    await journal.close()
  })

  it('writeAtomic (the files of DATA_DIR): written and fsynced before it is renamed into place', async () => {
    await writeAtomic(join(dir, 'admin-token.json'), '{"token":"adm_x"}')
    expect(seen()).toEqual([
      'writeFile admin-token.json.tmp',
      'sync admin-token.json.tmp',
      'rename admin-token.json.tmp admin-token.json',
    ])
  })
})
