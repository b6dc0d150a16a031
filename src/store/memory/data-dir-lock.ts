import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { type FileHandle, mkdir, open, readFile, readlink, stat, unlink } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError'
}

// Who holds a lock. A pid alone names nobody for sure: in a container the gateway is PID 1 at every start,
// and a dead process's pid is handed to another. So the lock also says which pid namespace the pid belongs
// to and when that process started (clock ticks since boot, /proc/<pid>/stat), and which boot and host
// it was written under; a random instance id tells two locks of one process apart.
export interface LockOwner {
  pid: number
  pid_ns?: string
  start_ticks?: number
  boot_id?: string
  host: string
  instance: string
}

export interface LockOptions {
  // an owner whose pid cannot be checked from here (another pid namespace or another machine) touches the
  // lock every heartbeatMs; one not touched for staleMs is gone
  heartbeatMs?: number
  staleMs?: number
}

const HEARTBEAT_MS = 1_000
const STALE_MS = 5_000

// the locks this process holds, by instance: a lock naming this very pid is ours only if it is among them
const heldHere = new Set<string>()

async function readText(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').catch(() => undefined)
}

// Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. The command name
// (field 2) may hold spaces and parentheses, so fields are counted from its closing one.
export async function startTicks(pid: number | 'self'): Promise<number | undefined> {
  const text = await readText(`/proc/${pid}/stat`)
  if (text === undefined) return undefined
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  const ticks = Number(fields[19])
  return Number.isSafeInteger(ticks) ? ticks : undefined
}

// This process as a lock names it; /proc-less systems leave out what they cannot say.
export async function currentOwner(): Promise<LockOwner> {
  const [ns, ticks, boot] = await Promise.all([
    readlink('/proc/self/ns/pid').catch(() => undefined),
    startTicks('self'),
    readText('/proc/sys/kernel/random/boot_id'),
  ])
  return {
    pid: process.pid,
    ...(ns === undefined ? {} : { pid_ns: ns }),
    ...(ticks === undefined ? {} : { start_ticks: ticks }),
    ...(boot === undefined ? {} : { boot_id: boot.trim() }),
    host: hostname(),
    instance: randomBytes(8).toString('hex'),
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it exists but belongs to another user
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

// The lock's text: this format, or a bare pid (a lock from before it), or nothing usable (a crash between
// create and write).
function parseLock(text: string): LockOwner | number | undefined {
  const bare = /^\s*(\d+)\s*$/.exec(text)
  if (bare) return Number(bare[1])
  try {
    const owner = JSON.parse(text) as LockOwner
    return Number.isSafeInteger(owner.pid) && owner.pid > 0 && typeof owner.instance === 'string'
      ? owner
      : undefined
  } catch {
    return undefined
  }
}

type Verdict = { live: true; why: string } | { live: false } | { live: 'unknown'; why: string }

// Whether the owner a lock names still runs, as far as this process can tell without waiting. `unknown`:
// its pid means nothing here (another pid namespace, another machine); only its heartbeat can tell.
async function judge(owner: LockOwner | number, me: LockOwner): Promise<Verdict> {
  if (typeof owner === 'number') {
    // a lock of the bare-pid format: its pid, if it is not this process and still runs, is kept
    if (owner === me.pid || !alive(owner)) return { live: false }
    return { live: true, why: `process ${owner}` }
  }
  const sameKernel = owner.boot_id !== undefined && owner.boot_id === me.boot_id
  if (owner.host === me.host && owner.boot_id !== undefined && me.boot_id !== undefined && !sameKernel) {
    // written on this host before it last booted: no process of then runs now
    return { live: false }
  }
  if (sameKernel && owner.pid_ns !== undefined && owner.pid_ns === me.pid_ns) {
    if (owner.pid === me.pid) {
      // this pid is this process: the lock is ours only if this process took it (a second store on one
      // DATA_DIR in one process); otherwise an earlier process had the same pid (a container's PID 1)
      return heldHere.has(owner.instance) ? { live: true, why: 'this process' } : { live: false }
    }
    if (!alive(owner.pid)) return { live: false }
    // the pid runs: the same process only if it started when the owner did (else the pid was reused)
    const ticks = await startTicks(owner.pid)
    if (owner.start_ticks !== undefined && ticks !== undefined && ticks !== owner.start_ticks)
      return { live: false }
    return { live: true, why: `process ${owner.pid}` }
  }
  const where = sameKernel ? 'in another pid namespace (another container)' : `on host ${owner.host}`
  return { live: 'unknown', why: `process ${owner.pid} ${where}` }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// An owner this process cannot check by pid is alive while it keeps touching its lock: wait until the lock
// has gone staleMs untouched (gone: true) or is touched again (live), at most staleMs plus a beat.
async function heartbeatStopped(path: string, staleMs: number, heartbeatMs: number): Promise<boolean> {
  const first = await stat(path).catch(() => undefined)
  if (first === undefined) return true
  for (;;) {
    const now = await stat(path).catch(() => undefined)
    if (now === undefined || now.ino !== first.ino) return true
    if (now.mtimeMs !== first.mtimeMs) return false
    if (Date.now() - now.mtimeMs > staleMs) return true
    await sleep(Math.min(heartbeatMs, 250))
  }
}

// One process owns an embedded DATA_DIR: two writing the same store log would interleave lines and each
// replay only its own view. DATA_DIR/.lock, created exclusively, names its owner (LockOwner); the owner
// touches it every second. A lock is taken over when its owner is provably gone: its pid is not running or
// was reused (another start time), the pid is this process's but another process wrote it (a container's
// PID 1 restarted), the host has rebooted since, or, for an owner whose pid cannot be checked from here
// (another container's pid namespace, another machine), it has not been touched for 5 s. Otherwise the open
// is refused. Returns the release function.
export async function lockDataDir(dir: string, options: LockOptions = {}): Promise<() => Promise<void>> {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS
  const staleMs = options.staleMs ?? STALE_MS
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const path = join(dir, '.lock')
  const me = await currentOwner()
  for (let attempt = 0; attempt < 3; attempt++) {
    const handle = await createLock(path, me)
    if (handle) return hold(path, handle, me, heartbeatMs)
    const text = await readText(path)
    if (text === undefined) continue
    const owner = parseLock(text)
    if (owner !== undefined) {
      let verdict = await judge(owner, me)
      if (verdict.live === 'unknown') {
        verdict = (await heartbeatStopped(path, staleMs, heartbeatMs))
          ? { live: false }
          : { live: true, why: verdict.why }
      }
      if (verdict.live) {
        throw new DataDirInUseError(
          `DATA_DIR ${dir} is in use by ${verdict.why} (${path}). Each gateway on the embedded store needs ` +
            'its own DATA_DIR; to run several, use Redis (REDIS_URL).',
        )
      }
    }
    // stale (or empty: a crash between create and write). Removed only if it is still the lock judged, so
    // that a process that took it over meanwhile keeps it
    if ((await readText(path)) === text) await unlink(path).catch(() => {})
  }
  throw new DataDirInUseError(`could not take the lock ${path}`)
}

// The lock file, created exclusively (never through a link) with its owner written in; undefined when one
// exists already.
async function createLock(path: string, me: LockOwner): Promise<FileHandle | undefined> {
  let handle: FileHandle
  try {
    handle = await open(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    )
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined
    throw err
  }
  try {
    await handle.writeFile(`${JSON.stringify(me)}\n`)
    await handle.sync()
  } catch (err) {
    await handle.close().catch(() => {})
    await unlink(path).catch(() => {})
    throw err
  }
  return handle
}

function hold(path: string, handle: FileHandle, me: LockOwner, heartbeatMs: number): () => Promise<void> {
  heldHere.add(me.instance)
  // the heartbeat: what an owner in another pid namespace is judged by
  const beat = setInterval(() => {
    const now = new Date()
    handle.utimes(now, now).catch(() => {})
  }, heartbeatMs)
  beat.unref()
  return async function releaseDataDir() {
    clearInterval(beat)
    heldHere.delete(me.instance)
    await handle.close().catch(() => {})
    // only our own lock: one taken over from us (we were judged gone) is the new owner's
    const text = await readText(path)
    const owner = text === undefined ? undefined : parseLock(text)
    if (typeof owner === 'object' && owner.instance === me.instance) await unlink(path).catch(() => {})
  }
}
