import { lstat, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deliverFirstStartSecrets } from '../../src/main/first-start.ts'
import { startServerProcess } from '../helpers/server-process.ts'
import { h1Request } from '../helpers/tls-client.ts'

// The first API key and a generated admin token must never reach stdout/stderr when those are a pipe
// (a log pipeline): `npm start` with stdout piped, as under Docker or systemd.
describe('first-start secrets stay out of piped output', () => {
  let dataDir: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-first-'))
  })
  afterAll(() => rm(dataDir, { recursive: true, force: true }))

  it('writes them to DATA_DIR/first-start.txt (0600), prints only its path, and the key works', async () => {
    const server = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info' })
    let out = ''
    try {
      const path = join(dataDir, 'first-start.txt')
      expect(server.firstStartPath).toBe(path)
      expect((await stat(path)).mode & 0o777).toBe(0o600)
      const file = await readFile(path, 'utf8')
      const key = /anvil_live_[0-9A-Za-z]{36}/.exec(file)?.[0]
      const { token } = JSON.parse(await readFile(join(dataDir, 'admin-token.json'), 'utf8')) as {
        token: string
      }
      expect(key).toBeDefined()
      expect(file).toContain(token)
      const ok = await h1Request(server.url, {
        method: 'POST',
        path: '/v1/hash/sha256',
        ca: server.ca,
        body: '{"input":"x"}',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      })
      expect(ok.status).toBe(200)
      out = server.output()
      expect(out).toContain(`written to ${path} (mode 0600)`)
      expect(out).not.toContain(key!)
      expect(out).not.toContain(token)
    } finally {
      expect(await server.stop()).toBe(0)
    }
    out = server.output()
    // no key-like or token-like string anywhere in stdout+stderr, start to exit
    expect(out).not.toMatch(/anvil_(live|test)_[0-9A-Za-z]/)
    expect(out).not.toMatch(/adm_[A-Za-z0-9_-]{20,}/)
  }, 60_000)

  it('a symbolic link already at DATA_DIR/first-start.txt is replaced, never written through or chmodded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'anvil-first-link-'))
    try {
      const victim = join(dir, 'victim')
      await writeFile(victim, 'not yours\n', { mode: 0o644 })
      const path = join(dir, 'first-start.txt')
      await symlink(victim, path)
      await deliverFirstStartSecrets({ lines: ['  anvil_live_x'], dataDir: dir, terminal: false })
      expect(await readFile(victim, 'utf8')).toBe('not yours\n')
      expect((await stat(victim)).mode & 0o777).toBe(0o644)
      expect((await lstat(path)).isSymbolicLink()).toBe(false)
      expect((await stat(path)).mode & 0o777).toBe(0o600)
      expect(await readFile(path, 'utf8')).toContain('anvil_live_x')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('on a terminal the banner shows them; with none to show nothing is written', async () => {
    const lines = ['  ADMIN_TOKEN:   adm_x', '  anvil_live_x']
    expect(await deliverFirstStartSecrets({ lines, dataDir, terminal: true })).toBe(lines)
    const dir = await mkdtemp(join(tmpdir(), 'anvil-first-none-'))
    try {
      expect(await deliverFirstStartSecrets({ lines: [], dataDir: dir, terminal: false })).toEqual([])
      await expect(stat(join(dir, 'first-start.txt'))).rejects.toThrow(/ENOENT/)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
