import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { loadConfig } from '../../src/config.ts'
import { buildAdminApp } from '../../src/http/admin-app.ts'
import { buildApp } from '../../src/http/app.ts'
import { loadTls, type TlsMaterial } from '../../src/http/transport/tls.ts'
import { type CreateKeyInput, createApiKey } from '../../src/keys/service.ts'
import type { PlanName } from '../../src/limits/plans.ts'
import { loggerOptions } from '../../src/observability/logger.ts'
import { openRuntime, type Runtime, type RuntimeOverrides } from '../../src/runtime.ts'

export interface TestApp {
  app: FastifyInstance
  admin: FastifyInstance
  runtime: Runtime
  key: string
  workspaceId: string
  adminToken: string
  dataDir: string
  tls: TlsMaterial | undefined
  // base URL when started with listen: true
  url: string
  newKey(input?: Partial<CreateKeyInput>): Promise<{ id: string; key: string }>
  newWorkspace(plan?: PlanName): Promise<{ workspaceId: string; key: string; keyId: string }>
  // POST a JSON body with the default key through inject
  post(url: string, body: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>
  close(): Promise<void>
}

export interface TestAppOptions {
  plan?: PlanName
  env?: Record<string, string>
  listen?: boolean
  tls?: boolean
  logStream?: NodeJS.WritableStream
  overrides?: RuntimeOverrides
  dataDir?: string
  // lift the business plan's per-second caps (quotas stay): for suites that fire thousands of requests a
  // second through inject (fuzzing, conformance), whose subject is not the limiter
  unthrottled?: boolean
}

export const ADMIN_TOKEN = 'test-admin-token-0123456789'
const UNTHROTTLED_PLANS = JSON.stringify({
  business: { key_rate_per_second: 1e6, workspace_rate_per_second: 1e6 },
})

// A full gateway on a temporary DATA_DIR, with a workspace (default plan: business, so limits stay out
// of the way) and a key. Inject by default; a real TLS socket on 127.0.0.1:0 with listen: true.
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'anvil-test-')))
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: options.logStream ? 'info' : 'silent',
    BOOTSTRAP: 'false',
    // worker threads start on first use: most tests never need one
    POOL_WARM: 'false',
    POOL_FREE_THREADS: '1',
    POOL_PAID_THREADS: '1',
    ...(options.unthrottled ? { PLANS: UNTHROTTLED_PLANS } : {}),
    ...options.env,
  })
  const runtime = await openRuntime(config, options.overrides)
  const useTls = options.tls ?? options.listen ?? false
  const tls = useTls ? await loadTls(undefined, dataDir) : undefined
  // the gateway's own logger settings (redaction, error serializer), writing to the test's stream
  const logger = options.logStream ? loggerOptions(config.logLevel, options.logStream) : undefined
  const app = await buildApp(runtime, { tls, ...(logger ? { logger } : {}) })
  const admin = await buildAdminApp(runtime, { adminToken: ADMIN_TOKEN, ...(logger ? { logger } : {}) })
  const ws = await runtime.store.createWorkspace({ name: 'test', plan: options.plan ?? 'business' })

  const created = await createApiKey(runtime.store, { workspace_id: ws.id })
  if (!created.ok) throw new Error(created.reason)
  let url = ''
  if (options.listen) {
    await app.listen({ port: 0, host: '127.0.0.1' })
    url = `https://127.0.0.1:${(app.server.address() as { port: number }).port}`
  }
  const key = created.key
  return {
    app,
    admin,
    runtime,
    key,
    workspaceId: ws.id,
    adminToken: ADMIN_TOKEN,
    dataDir,
    tls,
    url,
    async newKey(input = {}) {
      const k = await createApiKey(runtime.store, { workspace_id: ws.id, ...input })
      if (!k.ok) throw new Error(k.reason)
      return { id: k.record.id, key: k.key }
    },
    async newWorkspace(plan = 'business') {
      const w = await runtime.store.createWorkspace({ name: 'other', plan })
      const k = await createApiKey(runtime.store, { workspace_id: w.id })
      if (!k.ok) throw new Error(k.reason)
      return { workspaceId: w.id, key: k.key, keyId: k.record.id }
    },
    post(path, body, headers = {}) {
      return app.inject({
        method: 'POST',
        url: path,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      })
    },
    async close() {
      await app.close()
      await admin.close()
      await runtime.close()
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true })
    },
  }
}
