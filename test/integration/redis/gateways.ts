import { mkdtemp, rm } from 'node:fs/promises'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ServerProcess, startServerProcess } from '../../helpers/server-process.ts'

export const ADMIN_TOKEN = 'redis-test-admin-token-0123456789'

export interface Gateway {
  process: ServerProcess
  agent: https.Agent
  // POST /v1/hash/sha256 with a key; resolves with status, parsed body and headers
  hash(key: string): Promise<ApiResponse>
  get(path: string): Promise<ApiResponse>
  admin<T = unknown>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<T>
  stop(): Promise<void>
}

export interface ApiResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: { ok?: boolean; error?: { code: string } }
}

function request(
  g: ServerProcess,
  agent: https.Agent,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
) {
  return new Promise<ApiResponse>((resolve, reject) => {
    const req = https.request(new URL(path, g.url), { method, headers, agent }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: JSON.parse(Buffer.concat(chunks).toString()),
        }),
      )
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

// N real gateway processes (`node src/main/gateway.ts`) on one shared store given by `env` (REDIS_URL or
// REDIS_CLUSTER_NODES), each with its own DATA_DIR (certificate) and no bootstrap: tests create their
// workspaces through the admin API, as an operator would.
// These tests check exactness, not the outage policy (outage.test.ts does): 600 concurrent requests on two
// cores can delay an event loop past the production 500 ms Redis deadline, which would turn a charged request
// into a 503 and make the count look wrong.
export const EXACTNESS = { REDIS_COMMAND_TIMEOUT_MS: '5000' }

export async function startGateways(count: number, env: Record<string, string>): Promise<Gateway[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'anvil-gw-'))
      const proc = await startServerProcess({
        DATA_DIR: dataDir,
        ADMIN_TOKEN,
        BOOTSTRAP: 'false',
        LOG_LEVEL: 'warn',
        POOL_FREE_THREADS: '1',
        POOL_PAID_THREADS: '1',
        ...env,
      })
      const agent = new https.Agent({ ca: proc.ca, keepAlive: true, maxSockets: 24 })
      const gateway: Gateway = {
        process: proc,
        agent,
        hash: (key) =>
          request(
            proc,
            agent,
            'POST',
            '/v1/hash/sha256',
            { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            '{"input":"x"}',
          ),
        get: (path) => request(proc, agent, 'GET', path, {}),
        async admin(method, path, body) {
          const res = await fetch(`${proc.adminUrl}${path}`, {
            method,
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          })
          const json = (await res.json()) as { data?: unknown; error?: unknown }
          if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
          return json.data as never
        },
        async stop() {
          agent.destroy()
          await proc.stop()
          await rm(dataDir, { recursive: true, force: true })
        },
      }
      return gateway
    }),
  )
}

export async function newWorkspace(
  g: Gateway,
  overrides: Record<string, number>,
  plan: 'free' | 'pro' | 'business' = 'business',
): Promise<{ workspaceId: string; key: string; keyId: string }> {
  const ws = await g.admin<{ id: string }>('POST', '/admin/workspaces', { name: 'redis-test', plan })
  await g.admin('PATCH', `/admin/workspaces/${ws.id}`, { overrides })
  const key = await g.admin<{ id: string; key: string }>('POST', '/admin/keys', { workspace_id: ws.id })
  return { workspaceId: ws.id, key: key.key, keyId: key.id }
}
