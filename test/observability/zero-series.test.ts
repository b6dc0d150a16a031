import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { POOL_OUTCOMES } from '../../src/exec/metrics.ts'
import { VERSION } from '../../src/lib/version.ts'
import { PLAN_NAMES } from '../../src/limits/plans.ts'
import { AUTH_FAILURE_REASONS } from '../../src/observability/metrics.ts'
import { startTestApp, type TestApp } from '../helpers/harness.ts'
import { parseSamples, type Sample, sampleValue } from '../operations/prom-text.ts'

// A gateway that has answered nothing yet: every failure series an operator alerts on already exists at 0.
describe('series initialised at zero at boot', () => {
  let t: TestApp
  let samples: Sample[]
  let text: string
  beforeAll(async () => {
    t = await startTestApp({ env: { ANVIL_COMMIT: 'abcdef1234' } })
    const res = await t.admin.inject({ method: 'GET', url: '/metrics' })
    expect(res.statusCode).toBe(200)
    text = res.body
    samples = parseSamples(text)
  })
  afterAll(() => t?.close())

  it('requests by route, method, status class and plan, 5xx included', () => {
    const hash = { route: '/v1/hash/:algorithm', method: 'POST' }
    for (const plan of ['none', ...PLAN_NAMES]) {
      for (const status_class of ['2xx', '4xx', '5xx']) {
        expect(sampleValue(samples, 'anvil_http_requests_total', { ...hash, status_class, plan })).toBe(0)
      }
    }
    const latency = { ...hash, status_class: '2xx', plan: 'pro', le: '+Inf' }
    expect(sampleValue(samples, 'anvil_http_request_duration_seconds_bucket', latency)).toBe(0)
    // a route without a key has only plan "none"
    const health = samples.filter(
      (s) => s.name === 'anvil_http_requests_total' && s.labels.route === '/healthz',
    )
    expect(new Set(health.map((s) => s.labels.plan))).toEqual(new Set(['none']))
    expect(health.length).toBeGreaterThanOrEqual(3)
  })

  it('auth failures, limit refusals, key cache lookups, Redis errors', () => {
    for (const reason of AUTH_FAILURE_REASONS) {
      expect(sampleValue(samples, 'anvil_auth_failures_total', { reason })).toBe(0)
    }
    for (const plan of PLAN_NAMES) {
      for (const reason of ['rate', 'quota']) {
        expect(sampleValue(samples, 'anvil_limit_refusals_total', { reason, plan })).toBe(0)
      }
    }
    for (const result of ['hit', 'miss']) {
      expect(sampleValue(samples, 'anvil_key_cache_lookups_total', { result })).toBe(0)
    }
    for (const kind of ['timeout', 'connection', 'other']) {
      expect(sampleValue(samples, 'anvil_redis_errors_total', { kind })).toBe(0)
    }
  })

  it('pool outcomes per pool and operation, restarts and busy seconds per pool', () => {
    for (const pool of ['free', 'paid']) {
      for (const outcome of POOL_OUTCOMES) {
        expect(sampleValue(samples, 'anvil_pool_tasks_total', { pool, op: 'json.diff', outcome })).toBe(0)
      }
      expect(sampleValue(samples, 'anvil_pool_worker_restarts_total', { pool })).toBe(0)
      expect(sampleValue(samples, 'anvil_pool_busy_seconds_total', { pool })).toBe(0)
    }
    // every operation can reach a pool (a body past its inline bound), so every one has pool series
    expect(
      sampleValue(samples, 'anvil_pool_tasks_total', { pool: 'free', op: 'time.timestamp', outcome: 'ok' }),
    ).toBe(0)
    expect(sampleValue(samples, 'anvil_dispatch_total', { op: 'time.timestamp', mode: 'inline' })).toBe(0)
    expect(sampleValue(samples, 'anvil_dispatch_total', { op: 'time.timestamp', mode: 'pool' })).toBe(0)
  })

  it('job submissions, failures, storage refusals and durations per operation', () => {
    for (const reason of ['operation', 'timeout', 'crash', 'stalled', 'storage']) {
      expect(sampleValue(samples, 'anvil_jobs_failed_total', { operation: 'json.patch', reason })).toBe(0)
    }
    for (const limit of ['max_job_storage_bytes', 'store'])
      for (const stage of ['submit', 'result'])
        expect(sampleValue(samples, 'anvil_jobs_storage_refusals_total', { limit, stage })).toBe(0)
    const failed = { operation: 'json.patch', status: 'failed' }
    expect(sampleValue(samples, 'anvil_jobs_duration_seconds_count', failed)).toBe(0)
    expect(sampleValue(samples, 'anvil_jobs_submitted_total', { operation: 'hash', plan: 'pro' })).toBe(0)
  })

  it('follows the conventions: build info, unprefixed default metrics, _ratio gauges, one jobs family', () => {
    const node = process.versions.node
    expect(sampleValue(samples, 'anvil_build_info', { version: VERSION, node, commit: 'abcdef1234' })).toBe(1)
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(sampleValue(samples, name), name).toBeGreaterThan(0)
    }
    expect(sampleValue(samples, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0)
    const names = new Set(samples.map((s) => s.name))
    expect([...names].filter((n) => /^anvil_(process|nodejs)_|^anvil_job_/.test(n))).toEqual([])
    for (const name of ['anvil_event_loop_utilization_ratio', 'anvil_pool_utilization_ratio']) {
      expect(names.has(name), name).toBe(true)
    }
    expect(names.has('anvil_pool_utilization')).toBe(false)
  })

  it('stays bounded: the series a fresh gateway exports', () => {
    const anvil = samples.filter((s) => s.name.startsWith('anvil_')).length
    process.stderr.write(`zero-series: ${anvil} anvil_* samples, ${samples.length} in all at boot\n`)
    expect(anvil).toBeLessThan(6_000)
  })
})
