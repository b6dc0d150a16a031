import { execFile, spawn } from 'node:child_process'
import { access, mkdtemp, rm } from 'node:fs/promises'
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
