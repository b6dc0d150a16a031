import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/harness.ts'

const ROOT = new URL('../../', import.meta.url).pathname

interface Result {
  code: number | null
  stdout: string
  stderr: string
}

// The CLI as people run it: a real process (`node src/main/admin-cli.ts`, what the anvil-admin bin points at).
function cli(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/main/admin-cli.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ADMIN_TOKEN, ...env },
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => {
      stdout += c
    })
    child.stderr.on('data', (c: Buffer) => {
      stderr += c
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  await new Promise((r) => server.close(r))
  return port
}

describe('admin CLI', () => {
  let t: TestApp
  let adminUrl: string
  let requests = 0
  beforeAll(async () => {
    t = await startTestApp()
    t.admin.addHook('onRequest', async function countRequest() {
      requests++
    })
    await t.admin.listen({ port: 0, host: '127.0.0.1' })
    adminUrl = `http://127.0.0.1:${(t.admin.server.address() as AddressInfo).port}`
  })
  afterAll(() => t?.close())

  it('is the anvil-admin bin', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'))
    expect(pkg.bin).toEqual({ 'anvil-admin': 'src/main/admin-cli.ts' })
    expect(readFileSync(`${ROOT}src/main/admin-cli.ts`, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(
      true,
    )
  })

  // one process per case: generous time on a shared machine
  it('checks arguments locally: a bad value names its flag, exits 2, and nothing is sent', async () => {
    const before = requests
    const cases: [string[], RegExp][] = [
      [
        ['workspaces', 'update', 'ws_x', '--monthly-quota', 'lots'],
        /--monthly-quota: expected a whole number ≥ 0, got "lots"/,
      ],
      [
        ['workspaces', 'update', 'ws_x', '--monthly-quota', '-5'],
        /--monthly-quota: a value is required|--monthly-quota: expected/,
      ],
      [
        ['workspaces', 'update', 'ws_x', '--key-rate', '1.5'],
        /--key-rate: expected a whole number ≥ 1, got "1.5"/,
      ],
      [['workspaces', 'update', 'ws_x'], /nothing to change/],
      [
        ['workspaces', 'create', '--name', 'x', '--plan', 'gold'],
        /--plan: expected one of free, pro, business, got "gold"/,
      ],
      [['workspaces', 'create'], /--name is required/],
      [
        ['keys', 'create', '--workspace', 'ws_x', '--families', 'hash,jwtt'],
        /--families: expected one of (\w+, )*hash, .*, got "jwtt"/,
      ],
      [
        ['keys', 'create', '--workspace', 'ws_x', '--cidr', '10.0.0.0/33'],
        /--cidr: expected an IPv4\/IPv6 address or CIDR/,
      ],
      [
        ['keys', 'create', '--workspace', 'ws_x', '--expires-at', 'tomorrow'],
        /--expires-at: expected an ISO 8601 date-time/,
      ],
      [
        ['keys', 'rotate', 'key_x', '--grace-seconds', '99999999'],
        /--grace-seconds: expected a whole number from 0 to 2592000/,
      ],
      [['usage', 'ws_x', '--month', '2026-13'], /--month: expected a month as YYYY-MM/],
      [['workspaces', 'list', '--plan', 'pro'], /workspaces list: unknown option --plan/],
      [['keys', 'revoke'], /keys revoke: expected <key_id>, got none/],
      [['keys', 'revoke', 'a', 'b'], /keys revoke: expected <key_id>, got a b/],
      [['keys', 'create', '--workspace'], /--workspace: a value is required/],
      [['workspaces', 'delete', 'ws_x'], /unknown command: workspaces delete ws_x/],
      [['workspaces', 'list', '--limit', '101'], /--limit: expected a whole number from 1 to 100/],
    ]
    for (const [args, message] of cases) {
      const r = await cli(args, { ADMIN_URL: adminUrl })
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr, args.join(' ')).toMatch(message)
      expect(r.stderr).toMatch(/Usage: anvil-admin/)
      expect(r.stdout).toBe('')
    }
    expect(requests).toBe(before)
  }, 180_000)

  it('usage goes to stderr when no command is given; --help to stdout, per command', async () => {
    const none = await cli([])
    expect(none.code).toBe(2)
    expect(none.stdout).toBe('')
    expect(none.stderr).toMatch(/Commands:[\s\S]*keys rotate <key_id>[\s\S]*Exit status: 0 done; 1/)
    const help = await cli(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/Run `anvil-admin <command> --help`/)
    const keys = await cli(['keys', 'create', '--help'])
    expect(keys.code).toBe(0)
    expect(keys.stderr).toBe('')
    expect(keys.stdout).toMatch(/^Usage: anvil-admin keys create \[options\]/)
    expect(keys.stdout).toMatch(
      /--families F,F,\.\.\. +endpoint families the key may call: (\w+, )*hash, hmac/,
    )
    expect(keys.stdout).not.toMatch(/--grace-seconds/)
    const rotate = await cli(['keys', 'rotate', '-h'])
    expect(rotate.stdout).toMatch(
      /^Usage: anvil-admin keys rotate <key_id> \[options\][\s\S]*--grace-seconds N/,
    )
  })

  it('an unreachable server is named with its URL and the reason, exit 3', async () => {
    const port = await closedPort()
    const r = await cli(['workspaces', 'list'], { ADMIN_URL: `http://127.0.0.1:${port}` })
    expect(r.code).toBe(3)
    const [first, second] = r.stderr.split('\n')
    expect(first).toBe(
      `admin: cannot reach http://127.0.0.1:${port}/admin/workspaces?limit=100: ECONNREFUSED`,
    )
    expect(second).toBe('  the URL came from ADMIN_URL; looked, in order, at:')
    expect(r.stderr).toMatch(/Is the gateway running\?/)
  })

  it('runs commands against the admin API; a server refusal is its error on stderr, exit 1', async () => {
    const env = { ADMIN_URL: adminUrl }
    const ws = await cli(['workspaces', 'create', '--name', 'acme', '--plan', 'pro'], env)
    expect(ws.code).toBe(0)
    const id = JSON.parse(ws.stdout).id as string
    const key = await cli(
      [
        'keys',
        'create',
        `--workspace=${id}`,
        '--families',
        'hash, jwt',
        '--monthly-quota',
        '100',
        '--cidr',
        '10.0.0.0/8',
      ],
      env,
    )
    expect(key.code).toBe(0)
    expect(JSON.parse(key.stdout).key).toMatch(/^anvil_live_/)
    expect(key.stderr).toBe('')
    // a key whose new environment is not "production" is a test-mode key, and the CLI says so
    const staging = await cli(['keys', 'create', '--workspace', id, '--environment', 'staging'], env)
    expect(staging.code).toBe(0)
    expect(JSON.parse(staging.stdout).key).toMatch(/^anvil_test_/)
    expect(staging.stderr).toMatch(
      /^admin: a test-mode key \(anvil_test_…\): environment "staging" is in test mode/,
    )
    const list = JSON.parse((await cli(['keys', 'list', id], env)).stdout).data
    expect(list.find((k: { id: string }) => k.id === JSON.parse(key.stdout).id)).toMatchObject({
      families: ['hash', 'jwt'],
      monthly_quota: 100,
      allowed_cidrs: ['10.0.0.0/8'],
    })
    const updated = await cli(['workspaces', 'update', id, '--monthly-quota', '5000'], env)
    expect(JSON.parse(updated.stdout).limits.monthly_quota).toBe(5000)
    const missing = await cli(['workspaces', 'get', 'ws_nope'], env)
    expect(missing.code).toBe(1)
    expect(missing.stdout).toBe('')
    expect(missing.stderr).toMatch(/answered 404/)
    expect(missing.stderr).toMatch(/"code": "ERR_NOT_FOUND"/)
    const wrongToken = await cli(['workspaces', 'list'], {
      ...env,
      ADMIN_TOKEN: 'not-the-admin-token-at-all',
    })
    expect(wrongToken.code).toBe(1)
    expect(wrongToken.stderr).toMatch(/ERR_UNAUTHORIZED/)
  }, 60_000)

  it('list commands page through every page, or give one page with --limit/--starting-after', async () => {
    const env = { ADMIN_URL: adminUrl }
    for (let i = 0; i < 105; i++) await t.runtime.store.createWorkspace({ name: `many-${i}`, plan: 'free' })
    const total = (await t.runtime.store.listWorkspaces()).length
    const all = JSON.parse((await cli(['workspaces', 'list'], env)).stdout)
    expect(all.has_more).toBe(false)
    expect(all.data).toHaveLength(total)
    expect(new Set(all.data.map((w: { id: string }) => w.id)).size).toBe(total)
    const one = JSON.parse((await cli(['workspaces', 'list', '--limit', '2'], env)).stdout)
    expect(one.has_more).toBe(true)
    expect(one.data.map((w: { id: string }) => w.id)).toEqual(
      all.data.slice(0, 2).map((w: { id: string }) => w.id),
    )
    const next = JSON.parse(
      (await cli(['workspaces', 'list', '--limit', '2', '--starting-after', one.data[1].id], env)).stdout,
    )
    expect(next.data.map((w: { id: string }) => w.id)).toEqual(
      all.data.slice(2, 4).map((w: { id: string }) => w.id),
    )
  }, 60_000)
})
