import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { shippedEnv } from './shipped-env.ts'

const ROOT = new URL('../../', import.meta.url).pathname
const START_TIMEOUT_MS = 120_000

export interface Running {
  url: string
  child: ChildProcess
  output(): string
  stop(): Promise<void>
}

// Starts a Node script and waits until its output matches `ready` (whose first group is the URL). It runs
// in this tree unless `cwd` says otherwise (another commit's tree: bench/lib/base-tree.ts), and under the
// command `under` when one is given (valgrind: bench/lib/callgrind.ts), which then has the child's pid.
export async function startNode(
  script: string,
  env: Record<string, string>,
  ready: RegExp,
  cwd = ROOT,
  under: readonly string[] = [],
): Promise<Running> {
  const argv = [...under, process.execPath, script]
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  const onData = (c: Buffer) => {
    out += c.toString()
  }
  // keep draining so a chatty child never blocks on a full pipe
  child.stdout!.on('data', onData)
  child.stderr!.on('data', onData)
  // a child that neither becomes ready nor exits (an older tree's banner, a hang) is killed: a benchmark
  // waiting for it forever would never report
  const deadline = Date.now() + START_TIMEOUT_MS
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = ready.exec(out)
      if (m) {
        clearInterval(timer)
        resolve(m[1]!)
      } else if (Date.now() > deadline) {
        clearInterval(timer)
        child.kill('SIGKILL')
        reject(new Error(`${script} was not ready within ${START_TIMEOUT_MS / 1000} s:\n${out}`))
      }
    }, 20)
    child.once('exit', (code) => {
      clearInterval(timer)
      reject(new Error(`${script} exited with ${code}:\n${out}`))
    })
  })
  return {
    url,
    child,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

export interface Gateway extends Running {
  key: string
  adminUrl: string
  adminToken: string
}

function found(re: RegExp, text: string, what: string): string {
  const m = re.exec(text)
  if (!m) throw new Error(`the gateway's ${what} was not found in its first-start output:\n${text}`)
  return m[1]!
}

// The real gateway (`npm start`'s entry, or `base`: another commit's tree, run from its directory, or another
// entry that starts the gateway first: startGatewayWithContractFloor) on a
// scratch DATA_DIR, with the environment `npm start` sets before Node starts (shipped-env.ts; `env` may
// override it), its first workspace's limits raised so the benchmark measures the gateway's work, not
// its refusals.
export async function startGateway(
  env: Record<string, string> = {},
  base?: { gateway: string; dir: string },
  under: readonly string[] = [],
): Promise<Gateway> {
  const dataDir = await mkdtemp(join(tmpdir(), 'anvil-bench-'))
  const adminToken = 'bench-admin-token-0123456789'
  const running = await startNode(
    base?.gateway ?? 'src/main/gateway.ts',
    {
      ...shippedEnv(),
      DATA_DIR: dataDir,
      PORT: '0',
      ADMIN_PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_TOKEN: adminToken,
      DEFAULT_PLAN: 'business',
      ...env,
    },
    // the whole banner (one write): the URL, then its lines up to the blank line that ends it (trees before
    // the banner named its loopback address printed "localhost" there: a base tree may be one)
    /listening on (https:\/\/(?:127\.0\.0\.1|localhost):\d+)[\s\S]*metrics\/admin: .*\n(?:.+\n)*\n/,
    base?.dir,
    under,
  ).catch(async (err) => {
    await rm(dataDir, { recursive: true, force: true })
    throw err
  })
  const stop = async () => {
    await running.stop()
    await rm(dataDir, { recursive: true, force: true })
  }
  let key: string
  let adminUrl: string
  try {
    const out = running.output()
    // stdout is a pipe, so the first key is in DATA_DIR/first-start.txt, never in the output
    // (docs/security.md); trees older than that printed it in the banner (a base tree may be one)
    const secrets = await readFile(join(dataDir, 'first-start.txt'), 'utf8').catch(() => out)
    key = found(/^\s+(anvil_live_[0-9A-Za-z]{36})$/m, secrets, 'first API key')
    const workspace = found(/workspace (ws_[0-9A-Za-z]+)/, secrets, 'first workspace')
    adminUrl = found(/metrics\/admin: (http:\/\/\S+)\/metrics/, out, 'admin URL')
    const res = await fetch(`${adminUrl}/admin/workspaces/${workspace}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        overrides: {
          monthly_quota: 2_000_000_000,
          key_rate_per_second: 1_000_000,
          workspace_rate_per_second: 1_000_000,
        },
      }),
    })
    if (!res.ok) throw new Error(`raising limits failed: ${await res.text()}`)
  } catch (err) {
    // a gateway this function cannot hand over is not left running
    await stop()
    throw err
  }
  return {
    ...running,
    // the address it listens on, whatever name the banner gave it (localhost may resolve to ::1 first)
    url: running.url.replace('//localhost:', '//127.0.0.1:'),
    key,
    adminUrl,
    adminToken,
    stop,
  }
}

// A gateway that also serves the contract floor, on a port of its own in the same process
// (bench/baselines/floor-contract-in-gateway.ts): started as startGateway starts one, then `floorUrl` once
// the floor listens (its `READY <url>` follows the gateway's banner).
export async function startGatewayWithContractFloor(
  env: Record<string, string> = {},
): Promise<Gateway & { floorUrl: string }> {
  const gateway = await startGateway(env, {
    gateway: 'bench/baselines/floor-contract-in-gateway.ts',
    dir: ROOT,
  })
  const deadline = Date.now() + START_TIMEOUT_MS
  for (;;) {
    const m = /READY (https:\/\/\S+)/.exec(gateway.output())
    if (m) return { ...gateway, floorUrl: m[1]! }
    if (Date.now() > deadline || gateway.child.exitCode !== null) {
      await gateway.stop()
      throw new Error(`the contract floor beside the gateway did not listen:\n${gateway.output()}`)
    }
    await new Promise((r) => setTimeout(r, 20))
  }
}

// Waits until the gateway's /readyz answers 200: the store is up and every warm pool thread has loaded
// and warmed its ops (workers/warmup.ts).
export async function waitReady(url: string, ca: Buffer | string): Promise<void> {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    const status = await new Promise<number>((resolve) => {
      request(`${url}/readyz`, { ca }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
        .on('error', () => resolve(0))
        .end()
    })
    if (status === 200) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('the gateway did not become ready within 60 s')
}
