import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type RedisServer, redisUnavailable, startRedis } from '../helpers/redis-server.ts'
import { concrete, loadDashboards, metricNames, panelQueries, ROOT, variableQuery } from './dashboards.ts'
import { type Gateway, type JobWorker, startGateway, startJobWorker } from './gateway.ts'
import { describePrometheus, type Prometheus, startPrometheus } from './prometheus.ts'
import { driveTraffic, Tally } from './traffic.ts'

const dashboards = loadDashboards()

// Two gateways (one on a real Redis with a job worker, one on the embedded store) scraped every second by
// a real Prometheus that also loads prometheus/alerts.yml; traffic over every family, plan and error
// path; then every query of every dashboard must return at least one series through the HTTP API.
describePrometheus(
  'dashboards against a real Prometheus',
  () => {
    let redis: RedisServer | undefined
    let gateways: Gateway[] = []
    let worker: JobWorker | undefined
    let prom: Prometheus
    const tally = new Tally()

    beforeAll(async () => {
      redis = await startRedis({ durable: true })
      const small = { POOL_FREE_THREADS: '1', POOL_PAID_THREADS: '1', POOL_WARM: 'false' }
      gateways = await Promise.all([
        startGateway({ ...small, REDIS_URL: redis.url, POOL_FREE_QUEUE: '1' }),
        startGateway({ ...small, POOL_PAID_MEMORY_MB: '32' }),
      ])
      const [onRedis, embedded] = gateways as [Gateway, Gateway]
      // on Redis, jobs run in job worker processes (as in docker-compose.yml); embedded, in the gateway
      worker = await startJobWorker({ ...small, REDIS_URL: redis.url })
      prom = await startPrometheus(
        [
          { job: 'anvil-gateway', targets: gateways.map((g) => g.adminTarget) },
          { job: 'anvil-worker', targets: [worker.metricsTarget] },
        ],
        [join(ROOT, 'prometheus', 'alerts.yml')],
      )
      await Promise.all([
        driveTraffic(onRedis, { redis, overload: true, jobs: true }, tally),
        driveTraffic(embedded, { oom: true, jobs: true }, tally),
      ])
      await prom.scrapes(2)
    }, 90_000)

    afterAll(async () => {
      await prom?.stop()
      await worker?.stop()
      await Promise.all(gateways.map((g) => g.stop()))
      await redis?.stop()
    })

    it('the traffic took every path the dashboards show', () => {
      const seen = [...tally.statuses.keys()]
      for (const status of [200, 202, 400, 401, 403, 404, 405, 415, 422, 429, 503])
        expect(seen).toContain(status)
      expect(tally.has(413) || tally.has('reset')).toBe(true)
    })

    it('every panel query of every dashboard returns data', async () => {
      const empty: string[] = []
      for (const d of dashboards) {
        for (const q of panelQueries(d)) {
          const result = await prom.query(concrete(q.expr))
          if (result.length === 0) empty.push(`${q.dashboard} › ${q.panel} (${q.refId}): ${concrete(q.expr)}`)
          // `… or vector(0)` always answers: each metric it reads must exist too (ALERTS only while one fires)
          for (const name of metricNames(q.expr).filter((n) => n !== 'ALERTS')) {
            if ((await prom.query(`group(${name})`)).length === 0) {
              empty.push(`${q.dashboard} › ${q.panel} (${q.refId}): no series named ${name}`)
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
          if (!query) continue
          if ((await prom.query(query)).length === 0) empty.push(`${d.title} › $${v.name}: ${query}`)
        }
      }
      expect(empty).toEqual([])
    })

    it('Prometheus loads every alert rule and evaluates it without error', async () => {
      const rules = await prom.rules()
      expect(rules.filter((r) => r.type === 'alerting').length).toBeGreaterThanOrEqual(10)
      expect(rules.filter((r) => r.health !== 'ok')).toEqual([])
    })
  },
  redisUnavailable(),
)
