import { Queue } from 'bullmq'
import slot from 'cluster-key-slot'
import { Redis } from 'ioredis'
import { Registry } from 'prom-client'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { createJobMetrics } from '../../src/jobs/metrics.ts'
import { openQueues } from '../../src/jobs/redis/backend.ts'
import { type Consumer, startConsumer } from '../../src/jobs/redis/consumer.ts'
import { DEFAULT_PREFIX } from '../../src/jobs/redis/layout.ts'
import { emptyDepth, TIERS } from '../../src/jobs/types.ts'
import { startTestApp, type TestApp } from '../helpers/harness.ts'
import {
  describeRedis,
  type RedisCluster,
  type RedisServer,
  startRedis,
  startRedisCluster,
} from '../helpers/redis-server.ts'
import { jobsApiSuite } from './api-suite.ts'
import { type JobsApp, jobsAppStarter } from './jobs-harness.ts'

const WEEK_MS = 7 * 86_400_000

describeRedis('jobs on Redis and BullMQ: the /v1/jobs contract', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(() => server?.stop())

  jobsApiSuite(jobsAppStarter('redis', () => server.url))
})

describeRedis('jobs on Redis and BullMQ: storage, order and give-up', () => {
  let server: RedisServer
  let redis: Redis
  let queue: Queue
  let h: JobsApp | undefined
  const start = jobsAppStarter('redis', () => server.url)
  beforeAll(async () => {
    server = await startRedis()
    redis = new Redis(server.url)
    queue = new Queue('{paid}', { connection: redis, prefix: 'anvil-jobs' })
  })
  afterEach(async () => {
    await h?.close()
    h = undefined
  })
  afterAll(async () => {
    await queue?.close()
    redis?.disconnect()
    await server?.stop()
  })

  it('keeps the input in the job record, not in BullMQ, and the record for the result TTL once finished', async () => {
    h = await start({ worker: false, env: { JOBS_RESULT_TTL_SECONDS: '600' } })
    const r = await h.submit({ operation: 'json.diff', params: { left: [1, 2], right: [2, 3] } })
    const id = r.json().data.id as string
    const key = `anvil:{ws:${h.t.workspaceId}}:job:${id}`
    expect(await redis.hget(key, 'status')).toBe('queued')
    expect(JSON.parse((await redis.hget(key, 'input'))!)).toMatchObject({ operation: 'json.diff' })
    expect(await redis.pttl(key)).toBeGreaterThan(WEEK_MS - 60_000)
    const bull = (await queue.getJob(id))!
    expect(bull.data).toEqual({ workspace_id: h.t.workspaceId, operation: 'json.diff' })
    expect(bull.opts).toMatchObject({
      priority: 1,
      removeOnComplete: { age: 600 },
      removeOnFail: { age: 600 },
    })

    await h.startWorker()
    expect((await h.finished(id)).status).toBe('completed')
    expect(await redis.hexists(key, 'input')).toBe(0)
    const ttl = await redis.pttl(key)
    expect(ttl).toBeGreaterThan(590_000)
    expect(ttl).toBeLessThanOrEqual(600_000)
    await expect.poll(() => queue.getJobState(id)).toBe('completed')
  })

  it('runs waiting business jobs before pro jobs', async () => {
    h = await start({ worker: false, plan: 'pro' })
    const business = await h.t.newWorkspace('business')
    const job = { operation: 'hash', params: { algorithm: 'sha256', input: 'x' } }
    const pro = await Promise.all([1, 2, 3].map(async () => (await h!.submit(job)).json().data.id as string))
    const first = (await h.submit(job, business.key)).json().data.id as string
    await h.startWorker()
    const started = async (id: string, key?: string) => Date.parse((await h!.finished(id, key)).started_at!)
    const businessAt = await started(first, business.key)
    for (const id of pro) expect(await started(id)).toBeGreaterThanOrEqual(businessAt)
  })

  it('gives up on a job that keeps losing its worker, failing it rather than running it again', async () => {
    h = await start({ worker: false })
    const r = await h.submit({ operation: 'hash', params: { algorithm: 'sha256', input: 'x' } })
    const id = r.json().data.id as string
    // as if three workers had died running it: BullMQ's stalled counter
    await redis.hset(`anvil-jobs:{paid}:${id}`, 'stc', '3')
    await h.startWorker()
    const job = await h.finished(id)
    expect(job).toMatchObject({
      status: 'failed',
      error: { type: 'api_error', code: 'ERR_INTERNAL', details: { reason: 'stalled', stalls: 3 } },
    })
    expect(job.started_at).toBeUndefined()
    await expect.poll(() => queue.getJobState(id)).toBe('failed')
  })
})

describeRedis('jobs on Redis Cluster', () => {
  let cluster: RedisCluster
  let t: TestApp
  let consumer: Consumer | undefined
  beforeAll(async () => {
    cluster = await startRedisCluster()
  }, 60_000)
  afterAll(async () => {
    await consumer?.close()
    await t?.close()
    await cluster?.stop()
  })

  it('queues, runs and reads jobs: BullMQ keys share one slot, records sit with their workspace', async () => {
    t = await startTestApp({ env: { REDIS_CLUSTER_NODES: cluster.spec } })
    const registry = new Registry()
    consumer = await startConsumer({
      target: { clusterNodes: cluster.nodes },
      pools: t.runtime.pools,
      jobs: t.runtime.config.jobs,
      concurrency: { paid: 1, free: 1 },
      metrics: createJobMetrics(registry, () => consumer?.depth() ?? Promise.resolve(emptyDepth())),
      log: () => {},
    })
    const params = { left: { a: [1, 2, 3] }, right: { a: [3, 2, 1], b: true }, output: 'both' }
    const r = await t.post('/v1/jobs', { operation: 'json.diff', params })
    expect(r.statusCode).toBe(202)
    const id = r.json().data.id
    const get = () =>
      t.app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: { authorization: `Bearer ${t.key}` } })
    let data = (await get()).json().data
    for (let i = 0; i < 400 && data.status !== 'completed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
      data = (await get()).json().data
    }
    expect(data.status).toBe('completed')
    expect(data.result).toEqual((await t.post('/v1/json/diff', params)).json().data)
    await expect
      .poll(() => registry.metrics())
      .toMatch(/anvil_jobs_queue_depth\{queue="paid",state="completed"\} 1\n/)
    // every key BullMQ wrote sits in its queue's slot; the job's own keys in the paid queue's
    const written = await jobKeys(cluster)
    expect(written.filter((k) => k.includes(id)).length).toBeGreaterThan(0)
    for (const k of written.filter((k) => k.includes(id))) expect(k).toMatch(/^anvil-jobs:\{paid\}:/)
    for (const k of written) expect(slot(k), k).toBe(slot(/^anvil-jobs:(\{\w+\})/.exec(k)![1]!))
  })

  it('gives the paid and the free queue hash tags of their own, which three masters place on different nodes', async () => {
    // no server behind it: the queues are only asked their keys (the client is closed below, or it would
    // try 127.0.0.1:6379 again and again for the rest of the process)
    const offline = new Redis({ lazyConnect: true })
    const queues = openQueues(offline, DEFAULT_PREFIX)
    const slots = TIERS.map((tier) => {
      const keys = Object.values(queues[tier].keys)
      expect(
        keys.every((k) => k.startsWith(`anvil-jobs:{${tier}}:`)),
        tier,
      ).toBe(true)
      const own = new Set(keys.map((k) => slot(k)))
      expect(own.size, tier).toBe(1)
      return [...own][0]!
    })
    await Promise.all(Object.values(queues).map((q) => q.close()))
    offline.disconnect()
    expect(slots[0]).not.toBe(slots[1])
    const node = new Redis({ ...cluster.nodes[0]!, lazyConnect: true })
    const ranges = (await node.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][]
    node.disconnect()
    const owner = (s: number) => ranges.find(([from, to]) => s >= from && s <= to)![2][1]
    expect(owner(slots[0]!)).not.toBe(owner(slots[1]!))
  })
})

// the keys of the BullMQ queues on every master of the cluster
async function jobKeys(cluster: RedisCluster): Promise<string[]> {
  const keys: string[] = []
  for (const n of cluster.nodes) {
    const node = new Redis({ host: n.host, port: n.port })
    keys.push(...(await node.keys('anvil-jobs:*')))
    node.disconnect()
  }
  return keys
}
