import { createHash } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts'
import { h1Request, h2Request } from '../helpers/tls-client.ts'
import { startWorkerProcess, type WorkerProcess } from '../jobs/worker-process.ts'

const MODULE_TRACE = new URL('../helpers/module-trace.ts', import.meta.url).pathname
// OTLP span kinds
const SERVER = 2
const CLIENT = 3
const PRODUCER = 4
const CONSUMER = 5

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const CALLER_SPAN = '00f067aa0ba902b7'
const traceparent = (span: string) => `00-${TRACE_ID}-${span}-01`

// End to end: a gateway on a real Redis and a real job worker process, both exporting to a small OTLP/HTTP
// receiver; one trace, started by the caller's traceparent, from the gateway's request span to the spans
// the worker records for the job.
describeRedis('tracing: one trace from the caller through the gateway, the pool and the job worker', () => {
  let redis: RedisServer
  let receiver: OtlpReceiver
  let dataDir: string
  let gateway: ServerProcess
  let worker: WorkerProcess
  let workspaceId: string
  beforeAll(async () => {
    ;[redis, receiver] = await Promise.all([startRedis(), startOtlpReceiver()])
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-trace-'))
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' }
    gateway = await startServerProcess({
      DATA_DIR: dataDir,
      REDIS_URL: redis.url,
      DEFAULT_PLAN: 'pro',
      // a loaded test machine must not turn a slow Redis reply into a 503
      REDIS_COMMAND_TIMEOUT_MS: '5000',
      LOG_LEVEL: 'warn',
      POOL_WARM: 'false',
      NODE_OPTIONS: `--import=${MODULE_TRACE}`,
      ...otel,
    })
    workspaceId = /workspace (ws_[0-9A-Za-z]+)/.exec(gateway.firstStart ?? '')![1]!
    worker = await startWorkerProcess({ REDIS_URL: redis.url, POOL_WARM: 'false', ...otel })
  }, 90_000)
  afterAll(async () => {
    await worker?.stop()
    await gateway?.stop()
    await Promise.all([redis?.stop(), receiver?.close()])
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  const auth = () => ({ authorization: `Bearer ${gateway.firstKey}`, 'content-type': 'application/json' })
  const byName = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name)
  const one = (spans: ReceivedSpan[], name: string, parent?: ReceivedSpan) => {
    const found = byName(spans, name).filter((s) => !parent || s.parentSpanId === parent.spanId)
    expect(
      found.map((s) => s.name),
      `one ${name} span`,
    ).toEqual([name])
    return found[0]!
  }

  it('a pool request over HTTP/2: server span → store calls and dispatch → pool wait and run', async () => {
    // above hash's inline threshold (512 KiB): the request runs on the pro plan's (paid) pool
    const body = JSON.stringify({ input: 'a'.repeat(600 * 1024) })
    const r = await h2Request(gateway.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      headers: { ...auth(), traceparent: traceparent(CALLER_SPAN), tracestate: 'vendor=x' },
      body,
      ca: gateway.ca,
    })
    expect(r.status).toBe(200)
    const spans = await receiver.waitFor((all) =>
      all.some((s) => s.traceId === TRACE_ID && s.name === 'POST /v1/hash/:algorithm'),
    )
    const trace = spans.filter((s) => s.traceId === TRACE_ID)
    const server = one(trace, 'POST /v1/hash/:algorithm')
    // the caller's span is the parent; the answer names this server span (W3C traceresponse)
    expect(server.parentSpanId).toBe(CALLER_SPAN)
    expect(server.kind).toBe(SERVER)
    expect(server.service).toBe('anvil-gateway')
    expect(r.headers.traceresponse).toBe(`00-${TRACE_ID}-${server.spanId}-01`)
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/hash/:algorithm',
      'url.path': '/v1/hash/sha256',
      'url.scheme': 'https',
      'http.response.status_code': 200,
      'network.protocol.version': '2.0',
      'anvil.workspace': workspaceId,
    })
    // authentication and limits: one span for the access rule, the store calls on Redis its children
    const authenticate = one(trace, 'authenticate', server)
    expect(authenticate.attributes).toMatchObject({
      'anvil.access': 'apiKey',
      'anvil.workspace': workspaceId,
      'anvil.limits.allowed': true,
    })
    const lookup = one(trace, 'store lookupKey', authenticate)
    const consume = one(trace, 'store consume', authenticate)
    for (const s of [lookup, consume]) {
      expect(s.kind).toBe(CLIENT)
      expect(s.attributes['db.system.name']).toBe('redis')
      expect(s.startMs).toBeGreaterThanOrEqual(authenticate.startMs)
      expect(s.endMs).toBeLessThanOrEqual(authenticate.endMs + 0.01)
    }
    expect(consume.attributes['anvil.limits.allowed']).toBe(true)
    // dispatch on the pool, after the body was read (the context survives the stream's events)
    const dispatch = one(trace, 'dispatch hash', server)
    expect(dispatch.attributes).toMatchObject({ 'anvil.op': 'hash', 'anvil.pool': 'paid' })
    const wait = one(trace, 'pool wait', dispatch)
    const run = one(trace, 'pool run', dispatch)
    expect(wait.endMs).toBeCloseTo(run.startMs, 3)
    expect(wait.startMs).toBeGreaterThanOrEqual(dispatch.startMs)
    expect(run.endMs).toBeLessThanOrEqual(dispatch.endMs + 0.01)
    expect(run.endMs - run.startMs).toBeGreaterThan(0)
    // every span of the request lies within it
    for (const s of [authenticate, dispatch]) {
      expect(s.startMs).toBeGreaterThanOrEqual(server.startMs)
      expect(s.endMs).toBeLessThanOrEqual(server.endMs + 0.01)
    }
  })

  // one request's spans, once its server span (the last to end) has arrived
  const spansOf = async (traceId: string, serverName: string) => {
    const spans = await receiver.waitFor((all) =>
      all.some((s) => s.traceId === traceId && s.name === serverName),
    )
    return spans.filter((s) => s.traceId === traceId)
  }
  // a dispatch span on a pool: its wait for a thread, then its run there, both inside it
  const onPool = (trace: ReceivedSpan[], dispatch: ReceivedSpan, pool: string) => {
    const wait = one(trace, 'pool wait', dispatch)
    const run = one(trace, 'pool run', dispatch)
    for (const s of [wait, run]) expect(s.attributes['anvil.pool']).toBe(pool)
    expect(wait.endMs).toBeCloseTo(run.startMs, 3)
    expect(wait.startMs).toBeGreaterThanOrEqual(dispatch.startMs)
    expect(run.endMs).toBeLessThanOrEqual(dispatch.endMs + 0.01)
    expect(run.endMs).toBeGreaterThanOrEqual(run.startMs)
    return run
  }
  // the key in the verifier's cache: the next request asks the store nothing about it
  const warmKey = async () => {
    const r = await h1Request(gateway.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      headers: auth(),
      body: JSON.stringify({ input: 'warm' }),
      ca: gateway.ca,
    })
    expect(r.status).toBe(200)
  }

  it('an op-only route on the pool (its envelope made on the thread), with a cached key', async () => {
    const traceId = '5bf92f3577b34da6a3ce929d0e0e4701'
    await warmKey()
    // more UUIDs than the inline bound (50): the request goes to the paid pool by its input
    const r = await h2Request(gateway.url, {
      method: 'POST',
      path: '/v1/id/uuid',
      headers: { ...auth(), traceparent: `00-${traceId}-${CALLER_SPAN}-01` },
      body: JSON.stringify({ count: 100 }),
      ca: gateway.ca,
    })
    expect(r.status, r.body.toString()).toBe(200)
    expect(r.json<{ data: { uuids: string[] } }>().data.uuids).toHaveLength(100)
    expect(r.headers['server-timing']).toMatch(/dispatch;desc="paid"/)
    const trace = await spansOf(traceId, 'POST /v1/id/uuid')
    const server = one(trace, 'POST /v1/id/uuid')
    // a cached key makes no lookupKey call, yet the request still has its authentication span
    const authenticate = one(trace, 'authenticate', server)
    expect(authenticate.attributes).toMatchObject({
      'anvil.access': 'apiKey',
      'anvil.workspace': workspaceId,
    })
    expect(byName(trace, 'store lookupKey')).toEqual([])
    one(trace, 'store consume', authenticate)
    const dispatch = one(trace, 'dispatch id.uuid', server)
    expect(dispatch.attributes).toMatchObject({ 'anvil.op': 'id.uuid', 'anvil.pool': 'paid' })
    onPool(trace, dispatch, 'paid')
    expect(authenticate.endMs).toBeLessThanOrEqual(dispatch.startMs + 0.01)
  })

  it('an inline request: authenticate and a dispatch span, no pool spans', async () => {
    const traceId = '5bf92f3577b34da6a3ce929d0e0e4702'
    const r = await h1Request(gateway.url, {
      method: 'POST',
      path: '/v1/url/parse',
      headers: { ...auth(), traceparent: `00-${traceId}-${CALLER_SPAN}-01` },
      body: JSON.stringify({ url: 'https://example.com/a?b=c' }),
      ca: gateway.ca,
    })
    expect(r.status, r.body.toString()).toBe(200)
    expect(r.headers['server-timing']).toBeUndefined()
    const trace = await spansOf(traceId, 'POST /v1/url/parse')
    const server = one(trace, 'POST /v1/url/parse')
    one(trace, 'authenticate', server)
    const dispatch = one(trace, 'dispatch url.parse', server)
    expect(dispatch.attributes).toMatchObject({
      'anvil.op': 'url.parse',
      'anvil.pool': 'inline',
      'anvil.workspace': workspaceId,
    })
    expect(byName(trace, 'pool wait')).toEqual([])
    expect(byName(trace, 'pool run')).toEqual([])
    expect(dispatch.startMs).toBeGreaterThanOrEqual(server.startMs)
    expect(dispatch.endMs).toBeLessThanOrEqual(server.endMs + 0.01)
  })

  it('a raw body streamed to a pool thread: dispatch → pool wait and run', async () => {
    const traceId = '5bf92f3577b34da6a3ce929d0e0e4703'
    const body = Buffer.alloc(300 * 1024, 'streamed body ')
    const r = await h1Request(gateway.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      headers: {
        authorization: `Bearer ${gateway.firstKey}`,
        'content-type': 'application/octet-stream',
        traceparent: `00-${traceId}-${CALLER_SPAN}-01`,
      },
      body,
      ca: gateway.ca,
    })
    expect(r.status, r.body.toString()).toBe(200)
    expect(r.json<{ data: { digest: string } }>().data.digest).toBe(
      createHash('sha256').update(body).digest('hex'),
    )
    const trace = await spansOf(traceId, 'POST /v1/hash/:algorithm')
    const server = one(trace, 'POST /v1/hash/:algorithm')
    one(trace, 'authenticate', server)
    const dispatch = one(trace, 'dispatch hash', server)
    expect(dispatch.attributes).toMatchObject({
      'anvil.op': 'hash',
      'anvil.pool': 'paid',
      'anvil.streamed': true,
      'anvil.bytes': body.length,
      'anvil.workspace': workspaceId,
    })
    expect(dispatch.status).not.toBe(2)
    const run = onPool(trace, dispatch, 'paid')
    // the thread's CPU time on the body, what the plan's budget counts (the kernel's thread CPU clock may
    // tick coarser than this small body takes, so it can read 0)
    expect(run.attributes['anvil.busy_ms']).toBeTypeOf('number')
    expect(run.attributes['anvil.busy_ms']).toBeGreaterThanOrEqual(0)
    expect(dispatch.endMs).toBeLessThanOrEqual(server.endMs + 0.01)
  })

  it('a job: server span → enqueue (gateway) → wait in BullMQ and run (worker), one trace', async () => {
    const JOB_CALLER = '1111111111111111'
    const r = await h1Request(gateway.url, {
      method: 'POST',
      path: '/v1/jobs',
      headers: { ...auth(), traceparent: traceparent(JOB_CALLER) },
      body: JSON.stringify({ operation: 'hash', params: { algorithm: 'sha256', input: 'job input' } }),
      ca: gateway.ca,
    })
    // (the key is cached now: the verifier's synchronous store helpers pass through the traced store)
    expect(r.status, r.body.toString()).toBe(202)
    const jobId = r.json<{ data: { id: string } }>().data.id
    const spans = await receiver.waitFor((all) =>
      all.some((s) => s.service === 'anvil-job-worker' && s.name === 'job run'),
    )
    const trace = spans.filter((s) => s.traceId === TRACE_ID)
    const server = one(
      trace.filter((s) => s.parentSpanId === JOB_CALLER),
      'POST /v1/jobs',
    )
    expect(server.attributes['http.response.status_code']).toBe(202)
    expect(r.headers.traceresponse).toBe(`00-${TRACE_ID}-${server.spanId}-01`)
    const enqueue = one(trace, 'job enqueue', server)
    expect(enqueue.kind).toBe(PRODUCER)
    expect(enqueue.attributes).toMatchObject({
      'messaging.system': 'bullmq',
      'messaging.message.id': jobId,
      'messaging.destination.name': 'paid',
      'anvil.job.operation': 'hash',
    })
    // the worker continues the trace its queue entry carried
    const wait = one(trace, 'job wait', enqueue)
    const run = one(trace, 'job run', enqueue)
    expect(wait.service).toBe('anvil-job-worker')
    expect(run.service).toBe('anvil-job-worker')
    expect(run.kind).toBe(CONSUMER)
    expect(run.attributes).toMatchObject({
      'messaging.message.id': jobId,
      'messaging.destination.name': 'paid',
      'anvil.workspace': workspaceId,
      'anvil.job.attempt': 1,
    })
    expect(run.status).not.toBe(2)
    expect(wait.endMs).toBeCloseTo(run.startMs, 3)
    // the job waited from its enqueue (at most clock skew earlier) until the worker took it
    expect(wait.startMs).toBeGreaterThanOrEqual(enqueue.startMs - 5)
  })

  it('a request without traceparent starts its own trace; a refused one records its error code', async () => {
    const r = await h1Request(gateway.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      headers: {
        authorization: 'Bearer anvil_live_notavalidkeynotavalidkeynotavalidke',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ input: 'x' }),
      ca: gateway.ca,
    })
    expect(r.status).toBe(401)
    const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(r.headers.traceresponse))!
    expect(traceId).not.toBe(TRACE_ID)
    const spans = await receiver.waitFor((all) => all.some((s) => s.spanId === spanId))
    const server = spans.find((s) => s.spanId === spanId)!
    expect(server.parentSpanId).toBeUndefined()
    expect(server.attributes).toMatchObject({
      'http.response.status_code': 401,
      'anvil.error.code': 'ERR_INVALID_API_KEY',
    })
    // a 4xx is the client's: the server span is not an error
    expect(server.status).not.toBe(2)
  })

  it('loads the SDK in the traced gateway (the module check of tracing-off.test.ts can see it)', () => {
    expect(gateway.output()).toMatch(
      /^module-trace: @opentelemetry\/sdk-trace-base <- src\/tracing\/sdk\.ts$/m,
    )
  })
})
