import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts'
import { type RedisServer, redisUnavailable, startRedis } from '../helpers/redis-server.ts'
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts'
import { h1Request } from '../helpers/tls-client.ts'

// Turning tracing on must not change what a gateway does (issue 27): with OTEL_EXPORTER_OTLP_ENDPOINT
// set, the traced store handed back `ready` and `close` unbound, so on Redis /readyz always answered 503
// (a load balancer took every traced gateway out), admin /metrics answered 500 ("Cannot read private
// member #client") and SIGTERM exited 1 with a TypeError instead of draining. A real gateway process per
// store, exporting to a small OTLP receiver: a request, /readyz, /metrics, then a clean SIGTERM.

let receiver: OtlpReceiver
let redis: RedisServer | undefined
beforeAll(async () => {
  receiver = await startOtlpReceiver()
  if (!redisUnavailable()) redis = await startRedis()
}, 60_000)
afterAll(async () => {
  await Promise.all([receiver?.close(), redis?.stop()])
})

const stores: [string, () => Record<string, string>][] = [
  ['embedded', () => ({})],
  ['Redis', () => ({ REDIS_URL: redis!.url, REDIS_COMMAND_TIMEOUT_MS: '5000' })],
]

describe.each(stores)('a traced gateway on the %s store', (name, env) => {
  let dataDir: string
  let gateway: ServerProcess | undefined
  beforeAll(async () => {
    if (name === 'Redis' && !redis) return
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-traced-'))
    gateway = await startServerProcess({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      POOL_WARM: 'false',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...env(),
    })
  }, 90_000)
  afterAll(async () => {
    await gateway?.stop('SIGKILL')
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('serves, is ready, exposes /metrics, and drains on SIGTERM with nothing logged at error', async (ctx) => {
    if (!gateway) return ctx.skip(`no redis-server: ${redisUnavailable()}`)
    const r = await h1Request(gateway.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      ca: gateway.ca,
      headers: { authorization: `Bearer ${gateway.firstKey}`, 'content-type': 'application/json' },
      body: '{"input":"traced"}',
    })
    expect(r.status).toBe(200)
    expect(r.headers.traceresponse).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
    const traceId = String(r.headers.traceresponse).split('-')[1]
    await receiver.waitFor((spans) => spans.some((s) => s.traceId === traceId && s.name.startsWith('POST')))

    const ready = await h1Request(gateway.url, { path: '/readyz', ca: gateway.ca })
    expect(ready.status, ready.body.toString()).toBe(200)
    const metrics = await fetch(`${gateway.adminUrl}/metrics`)
    expect(metrics.status, await metrics.clone().text()).toBe(200)
    expect(await metrics.text()).toContain('anvil_http_requests_total')

    expect(await gateway.stop('SIGTERM')).toBe(0)
    const lines = gateway
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg?: string })
    // pino levels: 50 error, 60 fatal
    expect(lines.filter((l) => l.level >= 50)).toEqual([])
    expect(gateway.output()).not.toMatch(/TypeError|Cannot read private member/)
  }, 90_000)
})
