import { execFile, spawn, spawnSync } from 'node:child_process'
import { access, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const ROOT = new URL('../../', import.meta.url).pathname

describe('one gateway per embedded DATA_DIR', () => {
  let dataDir: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-lock-'))
  })
  afterAll(() => rm(dataDir, { recursive: true, force: true }))

  it('a second process on the same DATA_DIR refuses to boot with a clear message; a clean stop releases it', async () => {
    const env = { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1' }
    const first = spawn(process.execPath, ['src/main/gateway.ts'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const exited = new Promise<number | null>((resolve) => first.on('exit', resolve))
    let out = ''
    first.stdout.on('data', (c: Buffer) => {
      out += c.toString()
    })
    first.stderr.on('data', (c: Buffer) => {
      out += c.toString()
    })
    const deadline = Date.now() + 30_000
    while (!/Server listening at http:/.test(out)) {
      if (Date.now() > deadline || first.exitCode !== null)
        throw new Error(`first server did not start:\n${out}`)
      await new Promise((r) => setTimeout(r, 50))
    }
    try {
      const second = await run(process.execPath, ['src/main/gateway.ts'], {
        cwd: ROOT,
        env,
        timeout: 60_000,
      }).then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number | null; stderr: string }) => err,
      )
      expect(second.code).toBe(1)
      expect(second.stderr).toContain(`DATA_DIR ${dataDir} is in use by process ${first.pid}`)
      expect(second.stderr).not.toMatch(/\n\s+at /)
    } finally {
      first.kill('SIGTERM')
      expect(await exited).toBe(0)
    }
    await expect(access(join(dataDir, '.lock'))).rejects.toThrow(/ENOENT/)
  }, 120_000)
})

// How to run a command as PID 1 of a new pid namespace here (root, or an unprivileged user namespace)
function unshareCommand(): string[] | undefined {
  for (const prefix of [
    ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child'],
    ['unshare', '--map-root-user', '--pid', '--fork', '--mount-proc', '--kill-child'],
  ]) {
    const probe = spawnSync(prefix[0]!, [...prefix.slice(1), 'true'])
    if (probe.status === 0) return prefix
  }
  return undefined
}

const UNSHARE = unshareCommand()
if (!UNSHARE && process.env.CI === 'true')
  throw new Error(
    'unshare cannot make a pid namespace here: the PID 1 tests need it (util-linux, root or user namespaces)',
  )

// The Docker case (issue 36): the gateway is PID 1 of its container, so every start writes pid 1 into the
// lock; after an unclean exit the restarted gateway is PID 1 again, in a new pid namespace.
describe.skipIf(!UNSHARE)('one gateway per embedded DATA_DIR, as PID 1 of a pid namespace', () => {
  let dataDir: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-lock-pid1-'))
  })
  afterAll(() => rm(dataDir, { recursive: true, force: true }))

  function startAsPid1() {
    const env = { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1' }
    const child = spawn(UNSHARE![0]!, [...UNSHARE!.slice(1), process.execPath, 'src/main/gateway.ts'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString()
    })
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString()
    })
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
    // listening (resolves true), or exited first (false)
    const started = (async () => {
      const deadline = Date.now() + 60_000
      while (!/Server listening at http:/.test(out)) {
        if (child.exitCode !== null) return false
        if (Date.now() > deadline) throw new Error(`no banner and no exit:\n${out}`)
        await new Promise((r) => setTimeout(r, 50))
      }
      return true
    })()
    // the gateway's own pid outside its namespace (signals to unshare itself are not passed on)
    const gatewayPid = async () =>
      Number((await readFile(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')).trim())
    return { child, exited, started, gatewayPid, output: () => out }
  }

  it('after a kill -9 the next PID 1 starts; while it runs, another PID 1 is refused', async () => {
    const first = startAsPid1()
    expect(await first.started).toBe(true)
    const lock = await readFile(join(dataDir, '.lock'), 'utf8')
    expect(lock).toMatch(/^\{"pid":1,/)
    // as `docker kill` does: the gateway dies without releasing its lock
    process.kill(await first.gatewayPid(), 'SIGKILL')
    await first.exited
    expect(await readFile(join(dataDir, '.lock'), 'utf8')).toBe(lock)

    const second = startAsPid1()
    try {
      expect(await second.started, second.output()).toBe(true)
      const third = startAsPid1()
      expect(await third.started).toBe(false)
      expect(await third.exited).toBe(1)
      expect(third.output()).toContain(
        `DATA_DIR ${dataDir} is in use by process 1 in another pid namespace (another container)`,
      )
    } finally {
      if (second.child.exitCode === null) {
        process.kill(await second.gatewayPid(), 'SIGTERM')
        expect(await second.exited).toBe(0)
      }
    }
  }, 120_000)
})
