import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  currentOwner,
  DataDirInUseError,
  type LockOwner,
  lockDataDir,
  startTicks,
} from '../../src/store/memory/data-dir-lock.ts'

// What DATA_DIR/.lock says decides whether it is taken over: its owner provably gone (taken), or alive or
// not provably gone (refused). Each case writes the lock another process would have left.
describe('DATA_DIR/.lock: a stale lock is recognised, a live one refused', () => {
  let dir: string
  let lockPath: string
  const releases: (() => Promise<void>)[] = []
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'anvil-lock-'))
    lockPath = join(dir, '.lock')
  })
  afterEach(async () => {
    for (const release of releases.splice(0)) await release()
    await rm(dir, { recursive: true, force: true })
  })

  async function leave(owner: Partial<LockOwner>): Promise<void> {
    const me = await currentOwner()
    await writeFile(lockPath, `${JSON.stringify({ ...me, instance: 'left-behind', ...owner })}\n`)
  }
  async function take(options = {}): Promise<LockOwner> {
    releases.push(await lockDataDir(dir, options))
    return JSON.parse(await readFile(lockPath, 'utf8')) as LockOwner
  }

  it('names its owner: pid, pid namespace, start time, boot, host and a fresh instance', async () => {
    const owner = await take()
    expect(owner.pid).toBe(process.pid)
    expect(owner.pid_ns).toMatch(/^pid:\[\d+\]$/)
    expect(owner.start_ticks).toBe(await startTicks('self'))
    expect(owner.boot_id).toBe((await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim())
    expect(owner.instance).toMatch(/^[0-9a-f]{16}$/)
  })

  it('a live process of this pid namespace with the start time the lock names: refused', async () => {
    const other = spawn('sleep', ['30'])
    try {
      await new Promise((r) => other.once('spawn', r))
      await leave({ pid: other.pid!, start_ticks: await startTicks(other.pid!) })
      await expect(lockDataDir(dir)).rejects.toThrow(
        new DataDirInUseError(
          `DATA_DIR ${dir} is in use by process ${other.pid} (${lockPath}). Each gateway on the embedded ` +
            'store needs its own DATA_DIR; to run several, use Redis (REDIS_URL).',
        ),
      )
    } finally {
      other.kill()
    }
  })

  it('a reused pid (the pid runs, but started at another time than the owner did): taken over', async () => {
    const other = spawn('sleep', ['30'])
    try {
      await new Promise((r) => other.once('spawn', r))
      const ticks = (await startTicks(other.pid!))!
      await leave({ pid: other.pid!, start_ticks: ticks - 1 })
      const owner = await take()
      expect(owner.pid).toBe(process.pid)
      expect(owner.instance).not.toBe('left-behind')
    } finally {
      other.kill()
    }
  })

  it("this process's own pid, written by an earlier process (a container's PID 1 restarted): taken over", async () => {
    await leave({ pid: process.pid })
    expect((await take()).instance).not.toBe('left-behind')
  })

  it('held by this very process (a second store on one DATA_DIR): refused', async () => {
    await take()
    await expect(lockDataDir(dir)).rejects.toThrow(`DATA_DIR ${dir} is in use by this process`)
  })

  it('written on this host before it last booted: taken over', async () => {
    await leave({ pid: process.pid + 1, boot_id: '00000000-0000-0000-0000-000000000000' })
    expect((await take()).instance).not.toBe('left-behind')
  })

  it('a pid of another pid namespace: refused while its owner touches it, taken over once it stops', async () => {
    await leave({ pid: 1, pid_ns: 'pid:[1]' })
    let touched: Promise<void> = Promise.resolve()
    const beat = setInterval(() => {
      const now = new Date()
      touched = utimes(lockPath, now, now)
    }, 50)
    try {
      await expect(lockDataDir(dir, { heartbeatMs: 50, staleMs: 400 })).rejects.toThrow(
        /is in use by process 1 in another pid namespace \(another container\)/,
      )
    } finally {
      clearInterval(beat)
    }
    // the owner's last touch, landed: the stale time counts from it (timed from the heartbeat's end instead,
    // a beat the loop ran late left less than the 50 ms of slack that bound had)
    await touched
    const { mtimeMs: lastTouch } = await stat(lockPath)
    expect((await take({ heartbeatMs: 50, staleMs: 400 })).instance).not.toBe('left-behind')
    expect(Date.now() - lastTouch).toBeGreaterThan(400)
  })

  it('another host whose lock has not been touched for longer than the stale time: taken over at once', async () => {
    await leave({ pid: 1, host: 'elsewhere', boot_id: 'another-machine' })
    const past = new Date(Date.now() - 10_000)
    await utimes(lockPath, past, past)
    const started = performance.now()
    expect((await take()).instance).not.toBe('left-behind')
    expect(performance.now() - started).toBeLessThan(1_000)
  })

  it('the owner touches its lock every heartbeat', async () => {
    await take({ heartbeatMs: 50 })
    const past = new Date(Date.now() - 60_000)
    await utimes(lockPath, past, past)
    await new Promise((r) => setTimeout(r, 200))
    const { mtimeMs } = await stat(lockPath)
    expect(Date.now() - mtimeMs).toBeLessThan(1_000)
  })

  it('a lock of the bare-pid format: its pid alive and not this process is refused; this pid is taken over', async () => {
    await writeFile(lockPath, '1\n')
    await expect(lockDataDir(dir)).rejects.toThrow(/is in use by process 1 /)
    await writeFile(lockPath, `${process.pid}\n`)
    expect((await take()).pid).toBe(process.pid)
  })

  it('released: the lock file is gone; a lock taken over from this process is left to its new owner', async () => {
    const release = await lockDataDir(dir)
    await release()
    await expect(readFile(lockPath)).rejects.toThrow(/ENOENT/)
    const second = await lockDataDir(dir)
    await writeFile(lockPath, '{"pid":2,"host":"h","instance":"newer"}\n')
    await second()
    expect(await readFile(lockPath, 'utf8')).toContain('"newer"')
  })
})
