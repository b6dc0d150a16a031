import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type RedisServer, redisUnavailable, startRedis } from '../helpers/redis-server.ts'
import { concrete, loadDashboards, metricNames, panelQueries, ROOT, variableQuery } from './dashboards.ts'
import { type Gateway, type JobWorker, startGateway, startJobWorker } from './gateway.ts'
import { describePrometheus, type Prometheus, startPrometheus } from './prometheus.ts'
import { driveHealthyTraffic, Tally } from './traffic.ts'

const dashboards = loadDashboards()

// The day-one view: a gateway on Redis and a job worker, scraped by a real Prometheus, answer only
// successful traffic. No failure is injected, yet every panel query of every dashboard (the failure
// panels included: 5xx by route, quota refusals, pool timeouts/OOM/overloads, restarts, failed jobs)
// returns data, because those series exist at 0 from boot (src/observability/zero.ts).
describePrometheus(
  'dashboards on a healthy stack (no failure injected)',
  () => {
    let redis: RedisServer | undefined
    let gateway: Gateway | undefined
    let worker: JobWorker | undefined
    let prom: Prometheus
    const tally = new Tally()

    beforeAll(async () => {
      redis = await startRedis()
      const small = {
        POOL_FREE_THREADS: '1',
        POOL_PAID_THREADS: '1',
        POOL_WARM: 'false',
        REDIS_URL: redis.url,
      }
      gateway = await startGateway(small)
      worker = await startJobWorker(small)
      prom = await startPrometheus(
        [
          { job: 'anvil-gateway', targets: [gateway.adminTarget] },
          { job: 'anvil-worker', targets: [worker.metricsTarget] },
        ],
        [join(ROOT, 'prometheus', 'alerts.yml')],
      )
      await driveHealthyTraffic(gateway, { jobs: true }, tally)
      await prom.scrapes(2)
    }, 90_000)

    afterAll(async () => {
      await prom?.stop()
      await worker?.stop()
      await gateway?.stop()
      await redis?.stop()
    })

    it('the traffic had no failure in it', () => {
      expect([...tally.statuses.keys()].every((s) => typeof s === 'number' && s >= 200 && s < 300)).toBe(true)
    })

    it('every panel query of every dashboard returns data', async () => {
      const empty: string[] = []
      for (const d of dashboards) {
        for (const q of panelQueries(d)) {
          const expr = concrete(q.expr)
          if ((await prom.query(expr)).length === 0)
            empty.push(`${d.title} › ${q.panel} (${q.refId}): ${expr}`)
          // `… or vector(0)` always answers: each metric it reads must exist too (ALERTS only while one fires)
          for (const name of metricNames(q.expr).filter((n) => n !== 'ALERTS')) {
            if ((await prom.query(`group(${name})`)).length === 0) {
              empty.push(`${d.title} › ${q.panel} (${q.refId}): no series named ${name}`)
            }
          }
        }
      }
      expect(empty).toEqual([])
    })

    it('every template variable has values', async () => {
      const empty: string[] = []
      for (const d of dashboards) {
        for (const v of d.templating.list) {
          const query = variableQuery(v)
          if (query && (await prom.query(query)).length === 0) empty.push(`${d.title} › $${v.name}: ${query}`)
        }
      }
      expect(empty).toEqual([])
    })

    it('no alert fires on a healthy stack', async () => {
      const firing = await prom.query('ALERTS{alertstate="firing"}')
      expect(firing.map((s) => s.metric.alertname)).toEqual([])
    })
  },
  redisUnavailable(),
)
