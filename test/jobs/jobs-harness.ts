import type { LightMyRequestResponse } from 'fastify'
import { Registry } from 'prom-client'
import { createJobMetrics } from '../../src/jobs/metrics.ts'
import { type Consumer, startConsumer } from '../../src/jobs/redis/consumer.ts'
import type { PlanName } from '../../src/limits/plans.ts'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/harness.ts'

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// A job over a large input (by default 1.4 MB) that runs for a fraction of a second and reports its progress
// at each of its 4,000 operations: each moves the first item of a 200,000-item array to its end. `rotated`
// is its result.
export function movingPatchJob(size: { items: number; moves: number } = { items: 200_000, moves: 4_000 }) {
  const items = Array.from({ length: size.items }, (_, i) => i)
  const moves = size.moves
  return {
    job: {
      operation: 'json.patch',
      params: {
        document: { items },
        patch: Array.from({ length: moves }, () => ({ op: 'move', from: '/items/0', path: '/items/-' })),
      },
    },
    rotated: { result: { items: [...items.slice(moves), ...items.slice(0, moves)] } },
  }
}

// The same over 400,000 items with 40,000 moves (4.7 MB): seconds of work (3.8 s of CPU in-process, measured
// on a loaded machine; 15 s and more of wall time there), reporting its progress all along. What stops it early (a cancel) is
// seen well before it could have finished by itself.
export const longPatchJob = () => movingPatchJob({ items: 400_000, moves: 40_000 })

// slow to run within every budget (a small body that is slow to run is what the budgets refuse): a diff of
// 16,000 items, every other one changed and the whole array reversed, keeps the only runner busy a while
const SLOW_LEFT = Array.from({ length: 16_000 }, (_, i) => ({ id: i, v: [i, i] }))
export const SLOW_JOB = {
  operation: 'json.diff',
  params: {
    left: SLOW_LEFT,
    right: SLOW_LEFT.map((x, i) => (i % 2 === 0 ? { ...x, v: [i, -i] } : x)).reverse(),
  },
}
export const hashJob = (input: string) => ({ operation: 'hash', params: { algorithm: 'sha256', input } })

// A gateway with jobs, embedded or on Redis (then with a job consumer in this process, the same code
// `npm run worker` runs), on a clock the test can move forward.
export interface JobsApp {
  t: TestApp
  mode: 'embedded' | 'redis'
  // moves the injected clock forward (time keeps flowing underneath)
  advance(ms: number): void
  // the /metrics text where job runs are counted: the gateway embedded, the consumer on Redis
  workerMetrics(): Promise<string>
  gatewayMetrics(): Promise<string>
  get(path: string, key?: string): Promise<LightMyRequestResponse>
  submit(body: unknown, key?: string): Promise<LightMyRequestResponse>
  // polls until the job completed or failed; resolves with its data
  finished(id: string, key?: string): Promise<JobData>
  override(overrides: Record<string, number>, workspaceId?: string): Promise<void>
  // Redis only: starts the in-process consumer when started with worker: false
  startWorker(): Promise<void>
  close(): Promise<void>
}

export interface JobData {
  id: string
  operation: string
  status: 'queued' | 'active' | 'completed' | 'failed'
  result?: unknown
  error?: { type: string; code: string; message: string; details?: Record<string, unknown> }
  created_at: string
  started_at?: string
  finished_at?: string
  expires_at?: string
}

export interface JobsAppOptions {
  plan?: PlanName
  env?: Record<string, string>
  dataDir?: string
  // Redis only: start the consumer now (default) or later with startWorker()
  worker?: boolean
  // also listen on a real TLS socket (t.url)
  listen?: boolean
}

export type StartJobsApp = (options?: JobsAppOptions) => Promise<JobsApp>

export function jobsAppStarter(mode: 'embedded' | 'redis', redisUrl?: () => string): StartJobsApp {
  return async (options = {}) => {
    let offset = 0
    const clock = () => Date.now() + offset
    const env: Record<string, string> = {
      ...(mode === 'redis' ? { REDIS_URL: redisUrl!() } : {}),
      ...options.env,
    }
    const t = await startTestApp({
      plan: options.plan ?? 'business',
      env,
      overrides: { clock },
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(options.listen ? { listen: true } : {}),
    })
    // a suite meant for Redis must not quietly run against the embedded backend
    if (t.runtime.jobs.kind !== mode) throw new Error(`jobs backend is ${t.runtime.jobs.kind}, not ${mode}`)
    let consumer: Consumer | undefined
    let consumerRegistry: Registry | undefined
    async function startWorker() {
      const registry = new Registry()
      consumerRegistry = registry
      consumer = await startConsumer({
        target: { url: env.JOBS_REDIS_URL ?? env.REDIS_URL! },
        pools: t.runtime.pools,
        jobs: t.runtime.config.jobs,
        concurrency: { paid: 1, free: 1 },
        metrics: createJobMetrics(registry, () => consumer!.depth()),
        log: () => {},
        clock,
        maxStorageBytes: t.runtime.config.jobs.maxStorageBytes,
        sharedWithLimits: t.runtime.config.jobsRedisUrl === undefined,
      })
    }
    if (mode === 'redis' && options.worker !== false) await startWorker()
    const get = (path: string, key = t.key) =>
      t.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${key}` } })
    return {
      t,
      mode,
      advance(ms) {
        offset += ms
      },
      workerMetrics: () => (consumerRegistry ?? t.runtime.metrics.registry).metrics(),
      gatewayMetrics: () => t.runtime.metrics.registry.metrics(),
      get,
      submit: (body, key = t.key) =>
        t.post('/v1/jobs', body, key === t.key ? {} : { authorization: `Bearer ${key}` }),
      async finished(id, key) {
        const deadline = Date.now() + 30_000
        for (;;) {
          const r = await get(`/v1/jobs/${id}`, key)
          if (r.statusCode !== 200) throw new Error(`GET /v1/jobs/${id}: ${r.statusCode} ${r.body}`)
          const data = r.json().data as JobData
          if (data.status === 'completed' || data.status === 'failed') return data
          if (Date.now() > deadline) throw new Error(`job ${id} still ${data.status}`)
          await sleep(25)
        }
      },
      async override(overrides, workspaceId = t.workspaceId) {
        const r = await t.admin.inject({
          method: 'PATCH',
          url: `/admin/workspaces/${workspaceId}`,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ overrides }),
        })
        if (r.statusCode !== 200) throw new Error(`override: ${r.statusCode} ${r.body}`)
      },
      startWorker,
      async close() {
        await consumer?.close()
        await t.close()
      },
    }
  }
}
