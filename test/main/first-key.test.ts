import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FIRST_KEY_PENDING_FILE } from '../../src/main/first-key.ts'
import { startServerProcess } from '../helpers/server-process.ts'

const ROOT = new URL('../../', import.meta.url).pathname

// `node src/main/gateway.ts` run to its end (a start that fails): its exit status and everything it said
function runGateway(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/main/gateway.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => {
      out += c
    })
    child.stderr.on('data', (c: Buffer) => {
      out += c
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, out })
    })
  })
}

async function occupied(): Promise<{ server: Server; port: number }> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, port: (server.address() as { port: number }).port }
}

// Issue 43: a first start whose port was taken made the workspace and the first key, crashed with a raw
// EADDRINUSE stack and showed the key nowhere; the next start showed nothing either.
describe('the first key cannot be lost', () => {
  const dirs: string[] = []
  const fresh = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'anvil-first-key-'))
    dirs.push(dir)
    return dir
  }
  let busy: { server: Server; port: number }
  beforeAll(async () => {
    busy = await occupied()
  })
  afterAll(async () => {
    busy.server.close()
    for (const d of dirs) await rm(d, { recursive: true, force: true })
  })

  it('a port in use is named with its variable, makes no key, and the next start shows the first key', async () => {
    const dataDir = await fresh()
    for (const [variable, other] of [
      ['PORT', 'ADMIN_PORT'],
      ['ADMIN_PORT', 'PORT'],
    ] as const) {
      const failed = await runGateway({ DATA_DIR: dataDir, [variable]: String(busy.port), [other]: '0' })
      expect(failed.code, failed.out).toBe(1)
      expect(failed.out).toContain(`127.0.0.1:${busy.port}: port ${busy.port} is already in use`)
      expect(failed.out).toContain(`choose another port with ${variable} (e.g. ${variable}=${busy.port + 1})`)
      // a message, not Node's stack trace
      expect(failed.out).not.toMatch(/\n\s+at /)
      expect(failed.out).not.toMatch(/anvil_(live|test)_/)
    }
    await expect(stat(join(dataDir, FIRST_KEY_PENDING_FILE))).rejects.toThrow(/ENOENT/)
    // nothing was made: this start bootstraps, and its key works
    const server = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' })
    try {
      expect(server.firstKey).toMatch(/^anvil_live_/)
      // shown: no later start has anything to report
      await expect(stat(join(dataDir, FIRST_KEY_PENDING_FILE))).rejects.toThrow(/ENOENT/)
    } finally {
      expect(await server.stop()).toBe(0)
    }
  }, 120_000)

  it('a key made and never shown is reported once by the next start, with the command that makes one', async () => {
    const dataDir = await fresh()
    const first = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' })
    const workspace = /workspace (ws_\w+)/.exec(first.firstStart ?? '')![1]!
    expect(await first.stop()).toBe(0)
    // what a start killed between making the key and showing it leaves behind (the marker is written
    // before the key is made)
    await writeFile(
      join(dataDir, FIRST_KEY_PENDING_FILE),
      JSON.stringify({ workspace_id: workspace, created_at: new Date().toISOString() }),
    )
    await rm(join(dataDir, 'first-start.txt'))
    const second = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' })
    try {
      const out = second.output()
      expect(out).toContain(`The first API key (workspace ${workspace}) was created at an earlier start`)
      expect(out).toContain(`  npm run admin -- keys create --workspace ${workspace}`)
      expect(second.firstStart).toBeUndefined()
    } finally {
      expect(await second.stop()).toBe(0)
    }
    // said once: a later start shows the general hint only
    const third = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' })
    try {
      const out = third.output()
      expect(out).not.toContain('was created at an earlier start')
      expect(out).toContain(
        '  API keys:      npm run admin -- keys create --workspace <id> (ids: npm run admin -- workspaces list), or the console',
      )
    } finally {
      expect(await third.stop()).toBe(0)
    }
  }, 120_000)

  it('a first-start file that cannot be written says the key is lost and how to make one, never prints it', async () => {
    const dataDir = await fresh()
    // first-start.txt cannot be written: a directory holds its name
    await mkdir(join(dataDir, 'first-start.txt'), { recursive: true })
    const server = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' })
    try {
      const out = server.output()
      expect(out).toContain(`First-start secrets could not be written to ${dataDir}`)
      expect(out).toMatch(/The first API key is lost \(only its hash is stored\)/)
      expect(out).toMatch(/ {2}npm run admin -- keys create --workspace ws_\w+/)
      expect(out).toContain(`The admin token is saved in ${dataDir}/admin-token.json.`)
      expect(out).not.toMatch(/anvil_(live|test)_[0-9A-Za-z]/)
      await expect(stat(join(dataDir, FIRST_KEY_PENDING_FILE))).rejects.toThrow(/ENOENT/)
    } finally {
      expect(await server.stop()).toBe(0)
    }
    const { token } = JSON.parse(await readFile(join(dataDir, 'admin-token.json'), 'utf8')) as {
      token: string
    }
    expect(server.output()).not.toContain(token)
  }, 60_000)
})
