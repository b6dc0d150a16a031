import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const ROOT = new URL('../../', import.meta.url).pathname

// A damaged file in DATA_DIR stops the start with one line that names the file and says what to do, never
// a stack trace (issue 36 item 5: a damaged admin-token.json stopped the boot with a raw SyntaxError).
describe('start-up files: a damaged one stops the start with a message naming it', () => {
  let dataDir: string
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-startup-'))
  })
  afterEach(() => rm(dataDir, { recursive: true, force: true }))

  async function start(): Promise<{ code: number | null; stderr: string }> {
    const env = { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1' }
    return run(process.execPath, ['src/main/gateway.ts'], { cwd: ROOT, env, timeout: 20_000 }).then(
      (r) => ({ code: 0, stderr: r.stderr }),
      (err: { code: number | null; stderr: string }) => err,
    )
  }

  const cases: [string, string, string, RegExp][] = [
    [
      'admin-token.json, not JSON',
      'admin-token.json',
      '{"token": "adm_',
      /admin-token\.json is damaged: it is not JSON \(.+\)\. Restore it from a backup, or delete it to have a new admin token generated at the next start .*, or set ADMIN_TOKEN\.\n$/,
    ],
    [
      'admin-token.json without a token',
      'admin-token.json',
      '{"tokn":"adm_x"}',
      /admin-token\.json is damaged: it holds no "token" string\. Restore it from a backup/,
    ],
    [
      'store.json',
      'store.json',
      '{"log_from":1,',
      /store\.json is damaged: it is not JSON .*Restore it from a backup/,
    ],
    [
      'a store log line',
      'store.1.log',
      '{"t":\n{"t":1}\n',
      /store\.1\.log: line 1 is not valid JSON; the store log is damaged\n$/,
    ],
    [
      'accounts.json',
      'accounts.json',
      'nul',
      /accounts\.json is damaged: it is not JSON .*Restore it from a backup/,
    ],
    [
      'the self-signed certificate',
      'tls/cert.pem',
      'not a certificate',
      /tls\/cert\.pem is not a PEM certificate .*Delete .*\/tls to have a new self-signed certificate made/,
    ],
  ]
  for (const [name, file, text, message] of cases) {
    it(`${name}: exit 1, the file named, no stack`, async () => {
      await mkdir(join(dataDir, 'tls'), { recursive: true })
      if (file === 'tls/cert.pem') await writeFile(join(dataDir, 'tls', 'key.pem'), 'x')
      await writeFile(join(dataDir, file), text)
      const { code, stderr } = await start()
      expect(code).toBe(1)
      expect(stderr).toContain(join(dataDir, file))
      expect(stderr).toMatch(message)
      expect(stderr).not.toMatch(/\n\s+at /)
      expect(stderr.trim().split('\n')).toHaveLength(1)
      // nothing was replaced: the operator decides
      expect(await readFile(join(dataDir, file), 'utf8')).toBe(text)
    }, 60_000)
  }
})
