import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts'

export const ADMIN_TOKEN = 'ops-view-admin-token-0123456789'

export interface Call {
  method?: 'GET' | 'POST' | 'PUT'
  path: string
  key?: string
  // a JSON body (serialized) or raw bytes with `type`
  json?: unknown
  body?: string | Buffer
  type?: string
}

export interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

export interface Gateway {
  process: ServerProcess
  // host:port of the internal listener, as a Prometheus target
  adminTarget: string
  call(c: Call): Promise<Reply>
  admin<T = unknown>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<T>
  // a workspace on `plan` with `overrides`, and a key for it (options: families, ...)
  workspace(
    plan: 'free' | 'pro' | 'business',
    overrides?: Record<string, number>,
    keyOptions?: Record<string, unknown>,
  ): Promise<{ id: string; key: string; keyId: string }>
  stop(): Promise<void>
}

// `node src/main/gateway.ts` on ephemeral loopback ports with a scratch DATA_DIR and no bootstrap; workspaces
// and keys come from the admin API, as an operator would create them.
export async function startGateway(env: Record<string, string>): Promise<Gateway> {
  const dataDir = await mkdtemp(join(tmpdir(), 'anvil-ops-view-'))
  const proc = await startServerProcess({
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    BOOTSTRAP: 'false',
    LOG_LEVEL: 'warn',
    ...env,
  })
  const agent = new https.Agent({ ca: proc.ca, keepAlive: true, maxSockets: 32 })

  function call(c: Call): Promise<Reply> {
    const headers: Record<string, string> = {}
    if (c.key) headers.authorization = `Bearer ${c.key}`
    let body = c.body
    if (c.json !== undefined) body = JSON.stringify(c.json)
    if (body !== undefined) headers['content-type'] = c.type ?? 'application/json'
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(c.path, proc.url),
        { method: c.method ?? (body === undefined ? 'GET' : 'POST'), headers, agent },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString(),
            }),
          )
          res.on('error', reject)
        },
      )
      // a body refused before it is read (413) may reset the socket under the rest of the upload
      req.on('error', reject)
      req.end(body)
    })
  }

  async function admin<T>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${proc.adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const json = (await res.json()) as { data?: unknown; error?: unknown }
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
    return json.data as T
  }

  return {
    process: proc,
    adminTarget: new URL(proc.adminUrl).host,
    call,
    admin,
    async workspace(plan, overrides = {}, keyOptions = {}) {
      const ws = await admin<{ id: string }>('POST', '/admin/workspaces', { name: `ops-${plan}`, plan })
      if (Object.keys(overrides).length > 0) {
        await admin('PATCH', `/admin/workspaces/${ws.id}`, { overrides })
      }
      const key = await admin<{ id: string; key: string }>('POST', '/admin/keys', {
        workspace_id: ws.id,
        ...keyOptions,
      })
      return { id: ws.id, key: key.key, keyId: key.id }
    },
    async stop() {
      agent.destroy()
      await proc.stop()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

export interface JobWorker {
  // host:port of its metrics listener, as a Prometheus target
  metricsTarget: string
  stop(): Promise<void>
}

// `npm run worker` (src/main/job-worker.ts) on the gateways' Redis, its metrics on an ephemeral port.
export async function startJobWorker(env: Record<string, string>): Promise<JobWorker> {
  const child = spawn(process.execPath, ['src/main/job-worker.ts'], {
    cwd: new URL('../../', import.meta.url).pathname,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', JOBS_WORKER_METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString()
  })
  child.stderr!.on('data', (c: Buffer) => {
    out += c.toString()
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const deadline = Date.now() + 20_000
  const banner = /metrics: http:\/\/(\S+)\/metrics/
  for (;;) {
    if (banner.test(out)) break
    if (child.exitCode !== null) throw new Error(`job worker exited with ${child.exitCode}:\n${out}`)
    if (Date.now() > deadline) throw new Error(`job worker did not start:\n${out}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    metricsTarget: banner.exec(out)![1]!,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}
