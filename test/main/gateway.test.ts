import { execFile, spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServerProcess } from '../helpers/server-process.ts'
import { h1Request } from '../helpers/tls-client.ts'

const run = promisify(execFile)
const ROOT = new URL('../../', import.meta.url).pathname

describe('the server process', () => {
  let dataDir: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-proc-'))
  })
  afterAll(() => rm(dataDir, { recursive: true, force: true }))

  it('refuses bad configuration at boot, naming the variable', () => {
    for (const [name, value] of [
      ['PORT', 'eighty'],
      ['LOG_LEVEL', 'loud'],
      ['PLANS', '{"free":{"monthly_quota":-1}}'],
      ['REDIS_URL', 'not a url'],
    ] as const) {
      const r = spawnSync(process.execPath, ['src/main/gateway.ts'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, DATA_DIR: dataDir, [name]: value },
        encoding: 'utf8',
        timeout: 15_000,
      })
      expect(r.status).toBe(1)
      expect(r.stderr).toContain(name)
      expect(r.stderr).not.toMatch(/\n\s+at /)
    }
  })

  it('first start prints a working key and curl line; the CLI drives the admin API; restart keeps state', async () => {
    const secretInput = 'my-hmac-secret-value-0123456789'
    const server = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info' })
    let revokedKey = ''
    try {
      const out = server.output()
      expect(out).toContain(`Anvil 0.1.0 (Node v24`)
      // stdout is piped: the curl line with its key is in the first-start file the banner names
      expect(out).not.toMatch(/anvil_live_/)
      expect(server.firstStart).toMatch(
        /curl --cacert '.+cert\.pem' https:\/\/127\.0\.0\.1:\d+\/v1\/hash\/sha256 -H 'Authorization: Bearer anvil_live_/,
      )
      expect(server.firstKey).toBeDefined()
      const call = (key: string) =>
        h1Request(server.url, {
          method: 'POST',
          path: '/v1/hash/sha256',
          ca: server.ca,
          body: JSON.stringify({ input: secretInput }),
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        })
      expect((await call(server.firstKey!)).status).toBe(200)

      // the banner names the store and the job backend
      expect(out).toContain(`  store:         embedded, ${dataDir} (this gateway only)`)
      expect(out).toContain(`  jobs:          run by this gateway on its pools, kept in ${dataDir}/jobs`)
      // the first workspace is the local development one, on a plan that runs every README example
      expect(server.firstStart).toMatch(/workspace ws_\w+, plan pro\b/)
      // no ADMIN_URL or ADMIN_PORT: the CLI finds the listener (on a random port here) from DATA_DIR, where
      // the gateway recorded it, as it finds the token
      const { ADMIN_URL: _u, ADMIN_PORT: _p, ADMIN_HOST: _h, ADMIN_TOKEN: _t, ...inherited } = process.env
      const env = { ...inherited, DATA_DIR: dataDir }
      const cli = async (...args: string[]) =>
        JSON.parse(
          (await run(process.execPath, ['src/main/admin-cli.ts', ...args], { cwd: ROOT, env })).stdout,
        )
      const [ws] = (await cli('workspaces', 'list')).data
      expect(ws.plan).toBe('pro')
      const key = await cli('keys', 'create', '--workspace', ws.id, '--name', 'cli', '--families', 'hash')
      expect(key.key).toMatch(/^anvil_live_/)
      expect((await call(key.key)).status).toBe(200)
      const updated = await cli(
        'workspaces',
        'update',
        ws.id,
        '--plan',
        'business',
        '--monthly-quota',
        '5000',
        '--max-keys',
        '7',
      )
      expect(updated.limits).toMatchObject({ monthly_quota: 5000, key_rate_per_second: 500, max_keys: 7 })
      await cli('keys', 'revoke', key.id)
      expect((await call(key.key)).status).toBe(401)
      revokedKey = key.key
      const usage = await cli('usage', ws.id)
      expect(usage.workspace.requests).toBeGreaterThanOrEqual(2)
      await expect(
        run(process.execPath, ['src/main/admin-cli.ts', 'keys', 'revoke'], { cwd: ROOT, env }),
      ).rejects.toThrow(/keys revoke: expected <key_id>, got none/)

      // metrics on the internal listener
      const metrics = await (await fetch(`${server.adminUrl}/metrics`)).text()
      expect(metrics).toMatch(
        /anvil_http_requests_total\{route="\/v1\/hash\/:algorithm",method="POST",status_class="2xx",plan="(free|pro)"\}/,
      )
    } finally {
      expect(await server.stop()).toBe(0)
    }
    // nothing that looks like a secret reached the structured log lines
    const logLines = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
    expect(logLines.length).toBeGreaterThan(3)
    const logs = logLines.join('\n')
    for (const secret of [
      server.firstKey!,
      revokedKey,
      secretInput,
      /adm_[A-Za-z0-9_-]{20,}/,
      /anvil_(live|test)_/,
    ]) {
      if (typeof secret === 'string') expect(logs).not.toContain(secret)
      else expect(logs).not.toMatch(secret)
    }

    // stopped: the CLI says where it looked, and where the URL it tried came from
    const { ADMIN_URL: _u, ADMIN_PORT: _p, ADMIN_HOST: _h, ADMIN_TOKEN: _t, ...inherited } = process.env
    const stopped = await run(process.execPath, ['src/main/admin-cli.ts', 'workspaces', 'list'], {
      cwd: ROOT,
      env: { ...inherited, DATA_DIR: dataDir },
    }).catch((err: { code: number; stderr: string }) => err)
    expect((stopped as { code: number }).code).toBe(3)
    const said = (stopped as { stderr: string }).stderr
    expect(said).toContain(`cannot reach ${server.adminUrl}/admin/workspaces`)
    expect(said).toContain(`the URL came from ${join(dataDir, 'admin-listener.json')} (gateway pid`)
    expect(said).toContain(`ADMIN_URL (unset)`)

    const again = await startServerProcess({ DATA_DIR: dataDir })
    try {
      expect(again.firstKey).toBeUndefined()
      const req = (key: string) =>
        h1Request(again.url, {
          method: 'POST',
          path: '/v1/hash/sha256',
          ca: again.ca,
          body: '{"input":"x"}',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        })
      const ok = await req(server.firstKey!)
      expect(ok.status).toBe(200)
      // the plan change persisted too
      expect(String(ok.headers['ratelimit-policy'])).toContain('"month";q=5000')
      expect((await req(revokedKey)).status).toBe(401)
      // a restart shows no key, and says how to make one
      expect(again.output()).toContain('  API keys:      npm run admin -- keys create --workspace <id>')
    } finally {
      expect(await again.stop('SIGINT')).toBe(0)
    }
    // two gateway starts and a dozen CLI processes: more than the default on a shared machine
  }, 90_000)

  it('SIGTERM lets an in-flight request finish, then exits 0', async () => {
    const server = await startServerProcess({ DATA_DIR: dataDir })
    try {
      const ws = JSON.parse(
        (
          await run(
            process.execPath,
            ['src/main/admin-cli.ts', 'workspaces', 'create', '--name', 'drain', '--plan', 'pro'],
            {
              cwd: ROOT,
              env: { ...process.env, ADMIN_URL: server.adminUrl, DATA_DIR: dataDir },
            },
          )
        ).stdout,
      )
      const key = JSON.parse(
        (
          await run(process.execPath, ['src/main/admin-cli.ts', 'keys', 'create', '--workspace', ws.id], {
            cwd: ROOT,
            env: { ...process.env, ADMIN_URL: server.adminUrl, DATA_DIR: dataDir },
          })
        ).stdout,
      ).key as string
      const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = https.request(`${server.url}/v1/hash/sha256`, {
          method: 'POST',
          ca: server.ca,
          agent: false,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
        })
        req.on('response', (res) => {
          let body = ''
          res.on('data', (c: Buffer) => {
            body += c.toString()
          })
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
        })
        req.on('error', reject)
        req.write('hello ')
        // the rest of the body arrives after the signal
        setTimeout(() => {
          server.child.kill('SIGTERM')
          setTimeout(() => req.end('world'), 300)
        }, 300)
      })
      const res = await response
      expect(res.status).toBe(200)
      expect(JSON.parse(res.body).data.digest).toBe(
        'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
      )
      expect(await server.exited).toBe(0)
    } finally {
      await server.stop()
    }
  })
})
