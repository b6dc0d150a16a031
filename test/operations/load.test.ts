import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import autocannon, { type Request, type Result } from 'autocannon'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CATALOG } from '../../src/ops/catalog.ts'
import { ROOT } from './dashboards.ts'
import { type Gateway, startGateway } from './gateway.ts'
import { BIG_PATCH, FAMILY_CALLS, familyOf } from './traffic.ts'

// A short load run in CI: behaviour under concurrency (no errors, no timeouts, no 5xx; over-limit
// traffic answered 429 with Retry-After, and no more admitted than the cap allows). Latency figures are
// printed and written to test/artifacts/load-report.md, never asserted: CI machines are noisy.

const MIX_SECONDS = 6
const LIMIT_SECONDS = 3
const UNLIMITED = { key_rate_per_second: 100_000, workspace_rate_per_second: 100_000, monthly_quota: 1e9 }

type Seen = Map<string, number>

function count(seen: Seen, label: string): void {
  seen.set(label, (seen.get(label) ?? 0) + 1)
}

function header(headers: Record<string, unknown>, name: string): string | undefined {
  const found = Object.entries(headers).find(([k]) => k.toLowerCase() === name)
  return found === undefined ? undefined : String(found[1])
}

function run(gw: Gateway, requests: Request[], seconds: number, connections: number): Promise<Result> {
  return autocannon({
    url: gw.process.url,
    requests,
    duration: seconds,
    connections,
    timeout: 5,
  })
}

function summary(name: string, r: Result, seen: Seen): string {
  const rows = [...seen.entries()].sort().map(([k, v]) => `| ${k} | ${v} |`)
  return [
    `## ${name}`,
    '',
    `${r.requests.total} requests in ${r.duration} s over ${r.connections} connections: ` +
      `${r.requests.average.toFixed(0)} req/s; latency p50 ${r.latency.p50} ms, p90 ${r.latency.p90} ms, ` +
      `p99 ${r.latency.p99} ms, max ${r.latency.max} ms; errors ${r.errors}, timeouts ${r.timeouts}.`,
    '',
    '| response | count |',
    '|---|---|',
    ...rows,
    '',
  ].join('\n')
}

describe('load (autocannon, CI)', () => {
  let gw: Gateway
  const report: string[] = [
    '# Load test report',
    '',
    `Node ${process.version}, ${new Date().toISOString()}`,
    '',
  ]

  beforeAll(async () => {
    gw = await startGateway({ POOL_FREE_THREADS: '1', POOL_PAID_THREADS: '1' })
  })
  afterAll(async () => {
    await gw?.stop()
    const dir = join(ROOT, 'test', 'artifacts')
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, 'load-report.md'), report.join('\n'))
    process.stdout.write(`\n${report.join('\n')}\n(written to test/artifacts/load-report.md)\n`)
  })

  it('a mix of every family, inline and pool work, on three plans: no errors, timeouts or non-2xx', async () => {
    // every family of the catalog is in the mix (a family without a worked example that succeeds is not)
    expect(new Set(FAMILY_CALLS.map((c) => familyOf(c.path)))).toEqual(
      new Set(CATALOG.ops.map((op) => op.family)),
    )
    // the free workspace's budget is raised: a worker thread's cold start counts against the 1 s budget
    const keys = {
      free: (await gw.workspace('free', { ...UNLIMITED, compute_budget_ms: 30_000 })).key,
      pro: (await gw.workspace('pro', UNLIMITED)).key,
      business: (await gw.workspace('business', UNLIMITED)).key,
    }
    const seen: Seen = new Map()
    const requests: Request[] = Object.entries(keys).flatMap(([plan, key]) =>
      [...FAMILY_CALLS, { path: '/v1/json/patch', json: BIG_PATCH }].map((c) => {
        const body = c.json === undefined ? c.body : JSON.stringify(c.json)
        const headers: Record<string, string> = { authorization: `Bearer ${key}` }
        if (body !== undefined) headers['content-type'] = c.type ?? 'application/json'
        return {
          method: body === undefined ? 'GET' : 'POST',
          path: c.path,
          headers,
          ...(body === undefined ? {} : { body: String(body) }),
          onResponse: (status: number) => count(seen, `${status} ${plan}`),
        } as Request
      }),
    )
    const result = await run(gw, requests, MIX_SECONDS, 8)
    report.push(
      summary(`Mixed traffic (${requests.length} requests in sequence, every family)`, result, seen),
    )
    expect(result.errors).toBe(0)
    expect(result.timeouts).toBe(0)
    expect(result.non2xx).toBe(0)
    // every connection went through the whole sequence at least once
    expect(result.requests.total).toBeGreaterThan(requests.length * 8)
    expect([...seen.keys()].filter((k) => !k.startsWith('200 '))).toEqual([])
  })

  it('over-limit traffic gets 429 with Retry-After, never an error, and the cap holds', async () => {
    // the free plan's key cap is 5/s; the other workspace may make 40 requests this month
    const capped = await gw.workspace('free')
    const quota = await gw.workspace('pro', { ...UNLIMITED, monthly_quota: 40 })
    const seen: Seen = new Map()
    const bad: string[] = []
    const check =
      (who: string) => (status: number, body: string, _ctx: unknown, headers: Record<string, unknown>) => {
        const code = status === 200 ? '' : (JSON.parse(body) as { error: { code: string } }).error.code
        count(seen, `${status} ${who} ${code}`.trim())
        if (status === 429) {
          const retryAfter = header(headers, 'retry-after')
          if (!retryAfter || !/^[1-9]\d*$/.test(retryAfter)) bad.push(`${who}: Retry-After ${retryAfter}`)
        } else if (status !== 200) {
          bad.push(`${who}: ${status} ${body}`)
        }
      }
    const hash = (key: string, who: string): Request => ({
      method: 'POST',
      path: '/v1/hash/sha256',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"input":"over the limit"}',
      onResponse: check(who) as Request['onResponse'],
    })
    const started = performance.now()
    const result = await run(gw, [hash(capped.key, 'rate'), hash(quota.key, 'quota')], LIMIT_SECONDS, 4)
    const elapsed = (performance.now() - started) / 1000
    report.push(summary('Over the limits', result, seen))
    expect(result.errors).toBe(0)
    expect(result.timeouts).toBe(0)
    expect(bad).toEqual([])
    expect(seen.get('429 rate ERR_RATE_LIMITED')).toBeGreaterThan(0)
    expect(seen.get('429 quota ERR_QUOTA_EXCEEDED')).toBeGreaterThan(0)
    // a GCRA cap of r/s with a burst of r admits at most r × (1 + t) requests in t seconds
    expect(seen.get('200 rate') ?? 0).toBeLessThanOrEqual(Math.ceil(5 * (1 + elapsed)))
    expect(seen.get('200 quota')).toBe(40)
  })
})
