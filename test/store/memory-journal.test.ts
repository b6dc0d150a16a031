import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AppError } from '../../src/errors.ts'
import { hashKey } from '../../src/keys/format.ts'
import { DataDirInUseError } from '../../src/store/memory/data-dir-lock.ts'
import { Journal } from '../../src/store/memory/journal.ts'
import { MemoryStore } from '../../src/store/memory/memory-store.ts'
import type { NewKey } from '../../src/store/types.ts'

const run = promisify(execFile)
const CHILD = new URL('./memory-journal-child.ts', import.meta.url).pathname

function child(dir: string, mode: 'crash' | 'open', count = 0) {
  return run(process.execPath, [CHILD, dir, mode, String(count)], { timeout: 20_000 }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr, signal: null as string | null }),
    (err: { code?: number; signal?: string; stdout: string; stderr: string }) => ({
      code: err.code ?? null,
      signal: err.signal ?? null,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  )
}

type Logged = { level: string; message: string; detail: Record<string, unknown> }

function newKey(workspaceId: string, i: number): NewKey {
  return {
    workspace_id: workspaceId,
    project_id: 'prj_x',
    environment_id: 'env_x',
    mode: 'live',
    hash: hashKey(`anvil_live_bulk${String(i).padStart(31, '0')}`),
    prefix: 'anvil_live_bulk',
    name: `k${i}`,
    families: null,
    allowed_cidrs: null,
    expires_at: null,
    monthly_quota: null,
  }
}

// The event loop's longest stall while `work` runs. The histogram records the time between two of its ticks,
// and a stall before its first tick has nothing to be measured from: it is given ticks to start from first.
async function longestStall(work: () => Promise<void>): Promise<number> {
  const h = monitorEventLoopDelay({ resolution: 1 })
  h.enable()
  await new Promise((r) => setTimeout(r, 10))
  h.reset()
  await work()
  h.disable()
  return h.max / 1e6
}

describe('embedded store journal', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'anvil-journal-'))
  })
  afterEach(() =>
    rm(`${dir}.away`, { recursive: true, force: true }).then(() => rm(dir, { recursive: true, force: true })),
  )

  it('a process killed without closing loses nothing acknowledged: the next one replays the log', async () => {
    const crashed = await child(dir, 'crash', 20)
    expect(crashed.stdout).toContain('written')
    expect(crashed.signal).toBe('SIGKILL')
    // the dead process's lock is stale; its changes are only in the log
    expect(await readFile(join(dir, '.lock'), 'utf8')).toMatch(/^\{"pid":\d+,/)
    expect((await readdir(dir)).filter((f) => f.endsWith('.log'))).toEqual(['store.1.log'])
    const store = await MemoryStore.open({ dataDir: dir })
    expect((await store.listWorkspaces()).map((w) => w.name).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `crash-${i}`).sort(),
    )
    await store.close()
    // close folds the log into the snapshot
    expect((await readdir(dir)).filter((f) => f.endsWith('.log'))).toEqual([])
    expect(JSON.parse(await readFile(join(dir, 'store.json'), 'utf8')).workspaces).toHaveLength(20)
  })

  it('drops a torn last line (a crash mid-write) and keeps appending after the last whole one', async () => {
    const a = await MemoryStore.open({ dataDir: dir, journal: { minCompactBytes: 1e9 } })
    const ws = await a.createWorkspace({ name: 'kept', plan: 'pro' })
    // leave the log as a crash would: no snapshot at close
    await a.close().catch(() => {})
    await rm(join(dir, 'store.json'), { force: true })
    const line = JSON.stringify({ t: 'workspace', v: { ...ws, name: 'kept' } })
    await writeFile(join(dir, 'store.1.log'), `${line}\n{"t":"workspace","v":{"id":"ws_torn","na`)
    const logged: Logged[] = []
    const b = await MemoryStore.open({
      dataDir: dir,
      log: (level, message, detail) => logged.push({ level, message, detail }),
      journal: { minCompactBytes: 1e9 },
    })
    expect((await b.listWorkspaces()).map((w) => w.name)).toEqual(['kept'])
    expect(logged.some((l) => l.level === 'warn' && /incomplete last line/.test(l.message))).toBe(true)
    expect((await stat(join(dir, 'store.1.log'))).size).toBe(line.length + 1)
    await b.createWorkspace({ name: 'after', plan: 'free' })
    const lines = (await readFile(join(dir, 'store.1.log'), 'utf8')).trimEnd().split('\n')
    expect(lines.map((l) => (JSON.parse(l) as { v: { name: string } }).v.name)).toEqual(['kept', 'after'])
    await b.close()
  })

  it('refuses to start on a log damaged before its last line', async () => {
    await writeFile(join(dir, 'store.1.log'), 'not json\n{"t":"workspace","v":{"id":"ws_a"}}\n')
    await expect(MemoryStore.open({ dataDir: dir })).rejects.toThrow(/line 1 is not valid JSON/)
    // the failed open released its lock
    await expect(readFile(join(dir, '.lock'))).rejects.toThrow(/ENOENT/)
  })

  it('a failed write keeps the change, answers 503, logs an error, and lands once the disk is back', async () => {
    const logged: Logged[] = []
    const store = await MemoryStore.open({
      dataDir: dir,
      log: (level, message, detail) => logged.push({ level, message, detail }),
      journal: { retryMs: 50, minCompactBytes: 1e9 },
    })
    await store.createWorkspace({ name: 'before', plan: 'free' })
    // DATA_DIR disappears under the process (an unmounted volume): the log cannot be opened
    await rename(dir, `${dir}.away`)
    await writeFile(dir, 'not a directory')
    const refused = await store.createWorkspace({ name: 'during', plan: 'free' }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(AppError)
    expect((refused as AppError).code).toBe('ERR_UNAVAILABLE')
    expect(logged.filter((l) => l.level === 'error')).toHaveLength(1)
    expect(logged[0]!.message).toMatch(/could not write the store log/)
    // still in force in memory, and still retried (with backoff) while the disk is away
    expect((await store.listWorkspaces()).map((w) => w.name)).toContain('during')
    await new Promise((r) => setTimeout(r, 200))
    expect(logged.filter((l) => l.level === 'error')).toHaveLength(1)
    await rm(dir)
    await rename(`${dir}.away`, dir)
    const deadline = Date.now() + 5_000
    while (!logged.some((l) => /writable again/.test(l.message)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25))
    }
    const lines = (await readFile(join(dir, 'store.1.log'), 'utf8')).trimEnd().split('\n')
    expect(lines.map((l) => (JSON.parse(l) as { v: { name: string } }).v.name)).toEqual(['before', 'during'])
    await store.close()
    const again = await MemoryStore.open({ dataDir: dir })
    expect((await again.listWorkspaces()).map((w) => w.name).sort()).toEqual(['before', 'during'])
    await again.close()
  })

  it('never writes through a link: one at the log refuses the write (503), one at a snapshot temp name is left alone', async () => {
    const victim = join(`${dir}-victim`)
    await writeFile(victim, '', { mode: 0o644 })
    try {
      await mkdir(dir, { recursive: true })
      await symlink(victim, join(dir, 'store.1.log'))
      const logged: Logged[] = []
      const store = await MemoryStore.open({
        dataDir: dir,
        log: (level, message, detail) => logged.push({ level, message, detail }),
        journal: { retryMs: 60_000, minCompactBytes: 1e9 },
      })
      // the temporary name the snapshot used before issue 36: the pid (1 in every container), guessable
      await symlink(victim, join(dir, `store.json.${process.pid}.tmp`))
      const refused = await store.createWorkspace({ name: 'x', plan: 'free' }).catch((e: unknown) => e)
      expect((refused as AppError).code).toBe('ERR_UNAVAILABLE')
      expect(String(logged[0]!.detail.err)).toMatch(/ELOOP/)
      expect(await readFile(victim, 'utf8')).toBe('')
      // the link out of the way, the pending change lands and a snapshot is written beside the other link
      await rm(join(dir, 'store.1.log'))
      await store.close()
      expect(await readFile(victim, 'utf8')).toBe('')
      expect((await stat(victim)).mode & 0o777).toBe(0o644)
      expect(JSON.parse(await readFile(join(dir, 'store.json'), 'utf8')).workspaces).toHaveLength(1)
    } finally {
      await rm(victim, { force: true })
    }
  })

  it('a snapshot left half-written by a crash (its temporary file) is removed at open', async () => {
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, 'store.json.0a1b2c3d.tmp'), '{"log_from":1,"work')
    const store = await MemoryStore.open({ dataDir: dir })
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([])
    await store.close()
  })

  it('DATA_DIR/.lock keeps a second process (and a second store in this one) out', async () => {
    const store = await MemoryStore.open({ dataDir: dir })
    expect(JSON.parse(await readFile(join(dir, '.lock'), 'utf8')).pid).toBe(process.pid)
    const other = await child(dir, 'open')
    expect(other.code).toBe(3)
    expect(other.stderr).toContain(`DATA_DIR ${dir} is in use by process ${process.pid}`)
    await expect(MemoryStore.open({ dataDir: dir })).rejects.toBeInstanceOf(DataDirInUseError)
    await store.close()
    // released at close: the next process starts
    expect((await child(dir, 'open')).stdout).toContain('opened')
  })

  it('a lock left by a dead process is taken over', async () => {
    await mkdir(dir, { recursive: true })
    // a pid that is not running: the child's, after it exited
    const { stdout } = await run(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'])
    await writeFile(join(dir, '.lock'), `${stdout}\n`)
    const store = await MemoryStore.open({ dataDir: dir })
    expect(JSON.parse(await readFile(join(dir, '.lock'), 'utf8')).pid).toBe(process.pid)
    await store.close()
  })

  // The journal's slicing itself, apart from any store: a state whose pieces take 240 ms of the loop to make,
  // 0.4 ms each, far below the size that writes a chunk (so only the journal's time slices can yield). Made
  // without yielding (planted), the loop stalled 242-247 ms; in slices it stalls a slice (4 ms) and a piece,
  // plus this process's noise.
  it('a snapshot whose state takes 240 ms to serialise stalls the loop at most a slice at a time', async () => {
    const PIECES = 600
    const PIECE_MS = 0.4
    function* pieces(): Generator<string> {
      yield '"n":['
      for (let i = 0; i < PIECES; i++) {
        const until = performance.now() + PIECE_MS
        while (performance.now() < until) {}
        yield i === 0 ? '0' : `,${i}`
      }
      yield ']}'
    }
    const journal = await Journal.open(
      { dir, name: 'sliced', snapshot: pieces, log: () => {}, minCompactBytes: 1e9 },
      { snapshot: () => {}, entry: () => {} },
    )
    const stalls: number[] = []
    let wallMs = 0
    for (let run = 0; run < 2; run++) {
      stalls.push(
        await longestStall(async () => {
          const t0 = performance.now()
          await journal.compact()
          wallMs = performance.now() - t0
        }),
      )
    }
    await journal.close()
    const written = JSON.parse(await readFile(join(dir, 'sliced.json'), 'utf8')) as { n: number[] }
    expect(written.n).toHaveLength(PIECES)
    // the work was done (not skipped), and no slice of it held the loop for more than a fraction
    expect(wallMs).toBeGreaterThan(PIECES * PIECE_MS)
    expect(Math.min(...stalls)).toBeLessThan(25)
  })

  it('with 10k keys a change costs the loop under 5 ms, and compacting stalls it under 15 ms at a time', async () => {
    const store = await MemoryStore.open({ dataDir: dir, journal: { minCompactBytes: 1e9 } })
    const ws = await store.createWorkspace({ name: 'big', plan: 'business' })
    await Promise.all(Array.from({ length: 10_000 }, (_, i) => store.createKey(newKey(ws.id, i))))
    // the first snapshot, so the next compactions have a size to compare with
    const firstAt = performance.now()
    await store.compact()
    const compactMs = performance.now() - firstAt

    const ids = (await store.listKeys(ws.id)).slice(0, 20).map((k) => k.id)
    const writes: number[] = []
    for (const id of ids) {
      const t0 = performance.now()
      const pending = store.updateKey(id, { expires_at: '2099-01-01T00:00:00.000Z' })
      writes.push(performance.now() - t0)
      await pending
    }
    // the loop's longest stall while a snapshot of 10k keys is written; on a shared CI machine another
    // process can take the CPU for a while, so the best of three runs is what the code itself costs
    const stalls: number[] = []
    for (let run = 0; run < 3; run++) {
      await store.updateKey(ids[run]!, { expires_at: null })
      stalls.push(await longestStall(() => store.compact()))
    }
    // what each change used to cost: the whole store serialised on the loop
    const before = performance.now()
    JSON.stringify({ keys: await store.listKeys(ws.id), workspaces: await store.listWorkspaces() })
    const wholeMs = performance.now() - before
    const perWriteMs = writes.sort((a, b) => a - b)[writes.length >> 1]!
    const bestStall = Math.min(...stalls)
    console.log(
      `journal at 10k keys: loop cost per change ${perWriteMs.toFixed(3)} ms (median; whole-store ` +
        `serialisation ${wholeMs.toFixed(0)} ms), first snapshot ${compactMs.toFixed(0)} ms wall, ` +
        `loop max delay while compacting ${stalls.map((x) => x.toFixed(1)).join(' / ')} ms`,
    )
    expect(perWriteMs).toBeLessThan(5)
    // unsliced, this snapshot stalled the loop 23-39 ms (best of three 23); sliced, 1.4-1.8
    expect(bestStall).toBeLessThan(15)
    await store.close()
    const again = await MemoryStore.open({ dataDir: dir })
    expect(await again.listKeys(ws.id)).toHaveLength(10_000)
    await again.close()
  }, 60_000)
})
