import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { parse } from 'yaml'
import { type RedisServer, redisUnavailable, startRedis } from '../helpers/redis-server.ts'
import { type Gateway, type JobWorker, startGateway, startJobWorker } from '../operations/gateway.ts'
import { describePrometheus, type Prometheus, startPrometheus } from '../operations/prometheus.ts'
import { build, find } from './manifests.ts'
import { ROOT } from './sandbox.ts'

// The query the workers scale on, run by a real Prometheus against real gateways and a real worker, with
// the target labels the Prometheus Operator gives (namespace): it reads the jobs waiting and running, the
// same from any number of processes, and 0 once they are done; and a Redis list-length scaler would not
// see them (BullMQ keeps prioritised jobs in a sorted set).

const NAMESPACE = 'anvil'
const JOBS = 5

function kedaQuery(): string {
  const so = find(build('production'), 'ScaledObject', 'anvil-worker')
  return (so.spec as { triggers: { metadata: { query: string } }[] }).triggers[0]!.metadata.query
}

// prometheus-adapter's template for the HPA's external metric, filled in as the adapter does for an HPA in
// NAMESPACE: <<.Series>> the series' name, <<.LabelMatchers>> the namespace matcher
function adapterQuery(): string {
  const file = join(ROOT, 'deploy/kubernetes/components/worker-hpa/prometheus-adapter-rules.yaml')
  const rule = (
    parse(readFileSync(file, 'utf8')) as {
      rules: { external: { seriesQuery: string; metricsQuery: string }[] }
    }
  ).rules.external[0]!
  const series = /^(\w+)\{/.exec(rule.seriesQuery)![1]!
  return rule.metricsQuery
    .replaceAll('<<.Series>>', series)
    .replaceAll('<<.LabelMatchers>>', `namespace="${NAMESPACE}"`)
}

describePrometheus(
  'the queue-depth query the workers scale on',
  () => {
    let redis: RedisServer
    const gateways: Gateway[] = []
    let worker: JobWorker | undefined
    let prom: Prometheus | undefined
    const small = { POOL_FREE_THREADS: '1', POOL_PAID_THREADS: '1', POOL_WARM: 'false' }

    beforeAll(async () => {
      redis = await startRedis()
      for (let i = 0; i < 2; i++) gateways.push(await startGateway({ ...small, REDIS_URL: redis.url }))
      prom = await startPrometheus([
        {
          job: 'anvil-gateway',
          targets: gateways.map((g) => g.adminTarget),
          labels: { namespace: NAMESPACE },
        },
        // another installation's gateway on the same Redis would count here without the namespace matcher
        {
          job: 'anvil-gateway-elsewhere',
          targets: [gateways[0]!.adminTarget],
          labels: { namespace: 'other' },
        },
      ])
    }, 90_000)

    afterAll(async () => {
      await prom?.stop()
      await worker?.stop()
      for (const g of gateways) await g.stop()
      await redis?.stop()
    })

    const value = async (expr: string) => {
      const result = await prom!.query(expr)
      expect(result.length, expr).toBe(1)
      return Number(result[0]!.value[1])
    }

    it('counts the jobs queued with no worker running, once across gateways, and a list scaler sees none', async () => {
      const { key } = await gateways[0]!.workspace('business')
      for (let i = 0; i < JOBS; i++) {
        const r = await gateways[0]!.call({
          path: '/v1/jobs',
          key,
          json: { operation: 'hash', params: { algorithm: 'sha256', input: `job ${i}` } },
        })
        expect(r.status).toBe(202)
      }
      // the gateways' own scrape: the gauge and its labels, as exported
      const text = await (await fetch(`http://${gateways[1]!.adminTarget}/metrics`)).text()
      expect(text).toMatch(
        new RegExp(`^anvil_jobs_queue_depth\\{queue="paid",state="waiting"\\} ${JOBS}$`, 'm'),
      )
      await prom!.scrapes(2)
      expect(await value(kedaQuery())).toBe(JOBS)
      expect(await value(adapterQuery())).toBe(JOBS)
      // KEDA's redis scaler reads LLEN of a list: BullMQ's `wait` list is empty, every job being prioritised
      const client = new Redis(redis.url)
      expect(await client.llen('anvil-jobs:{paid}:wait')).toBe(0)
      expect(await client.zcard('anvil-jobs:{paid}:prioritized')).toBe(JOBS)
      client.disconnect()
    })

    it('reads 0 once a worker has run them, and the worker exports the same gauge', async () => {
      worker = await startJobWorker({ ...small, REDIS_URL: redis.url })
      const text = await (await fetch(`http://${worker.metricsTarget}/metrics`)).text()
      expect(text).toMatch(/^anvil_jobs_queue_depth\{queue="paid",state="(waiting|active|completed)"\} \d+$/m)
      await expect
        .poll(
          async () => {
            await prom!.scrapes(1)
            return value(kedaQuery())
          },
          { timeout: 30_000, interval: 500 },
        )
        .toBe(0)
      expect(await value(adapterQuery())).toBe(0)
    })
  },
  redisUnavailable(),
)
