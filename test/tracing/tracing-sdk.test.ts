import { createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Dispatcher } from '../../src/exec/dispatch.ts'
import { DEFAULT_PLANS } from '../../src/limits/plans.ts'
import type { Store } from '../../src/store/types.ts'
import { startTracing } from '../../src/tracing/sdk.ts'
import type { TracingConfig } from '../../src/tracing/settings.ts'
import type { RequestInfo, TracingLog } from '../../src/tracing/types.ts'
import { opNamed } from '../helpers/ops.ts'
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts'

const request = (over: Partial<RequestInfo> = {}): RequestInfo => ({
  method: 'POST',
  route: '/v1/hash/:algorithm',
  path: '/v1/hash/sha256',
  traceparent: undefined,
  tracestate: undefined,
  clientAddress: '127.0.0.1',
  httpVersion: '1.1',
  userAgent: undefined,
  requestId: 'req_test',
  ...over,
})

// a store with one asynchronous call and one synchronous helper, as the verifier uses them
const fakeStore = {
  consume: async () => ({ allowed: false, reason: 'rate' }),
  invalidationLive: () => true,
} as unknown as Store

const silent: TracingLog = () => {}
const ctx = {
  workspaceId: 'ws_1',
  limits: DEFAULT_PLANS.pro,
  execution: {
    mode: 'pool' as const,
    op: opNamed('hash'),
    heavyCheck: false,
    rawBody: false,
    declaredBytes: 10,
    reservation: null,
  },
}

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('the tracing SDK seam (src/tracing/sdk.ts)', () => {
  let receiver: OtlpReceiver
  beforeAll(async () => {
    receiver = await startOtlpReceiver()
  })
  afterAll(() => receiver?.close())
  const config = (over: Partial<TracingConfig> = {}): TracingConfig => ({
    url: `${receiver.endpoint}/v1/traces`,
    serviceName: undefined,
    sampler: 'parentbased_always_on',
    ratio: 1,
    ...over,
  })

  it('store calls of the active request become its child spans; synchronous helpers pass through', async () => {
    const tracing = startTracing(config(), { serviceName: 'sdk-test', serviceVersion: '0' }, silent)
    const store = tracing.traceStore(fakeStore, 'redis')
    // no active request: no span
    await store.consume({} as never)
    const trace = tracing.startRequest(request())
    trace.enter()
    expect(store.invalidationLive()).toBe(true)
    await store.consume({} as never)
    trace.end(429, 'ws_1')
    await tracing.shutdown()
    const spans = receiver.spans.filter((s) => s.service === 'sdk-test')
    expect(spans.map((s) => s.name).sort()).toEqual(['POST /v1/hash/:algorithm', 'store consume'])
    const consume = spans.find((s) => s.name === 'store consume')!
    expect(consume.attributes).toMatchObject({
      'anvil.limits.allowed': false,
      'anvil.limits.reason': 'rate',
      'db.operation.name': 'consume',
    })
  })

  it('every traced seam keeps `this`: methods that read private fields work through the proxies', async () => {
    const tracing = startTracing(config(), { serviceName: 'sdk-this', serviceVersion: '0' }, silent)
    // each class reads a private field in every method, as RedisStore's #client does
    class PrivateStore {
      #up = true
      async ready() {
        return this.#up
      }
      async close() {
        this.#up = false
      }
      invalidationLive() {
        return this.#up
      }
      async consume() {
        return { allowed: this.#up, reason: null }
      }
    }
    class PrivateService {
      #n = 0
      readonly kind = 'embedded'
      async submit() {
        return { id: `job_${++this.#n}`, tier: 'paid', operation: 'hash' }
      }
      async depth() {
        return this.#n
      }
      open() {
        return Promise.resolve(this.#n)
      }
      async run() {
        return { where: 'inline', waitMs: 0, runMs: 0, value: this.#n }
      }
      async close() {
        this.#n = -1
      }
    }
    const store = tracing.traceStore(new PrivateStore() as unknown as Store, 'redis')
    const trace = tracing.startRequest(request())
    trace.enter()
    expect(await store.ready()).toBe(true)
    expect(store.invalidationLive()).toBe(true)
    expect((await store.consume({} as never)).allowed).toBe(true)
    await store.close()
    expect(await store.ready()).toBe(false)
    const service = new PrivateService()
    type Traced = Record<string, (...a: unknown[]) => Promise<unknown>>
    const jobs = tracing.traceJobs(service as never) as unknown as Traced
    expect(await jobs.submit!({ workspaceId: 'ws_1' }, new Uint8Array())).toMatchObject({ id: 'job_1' })
    expect(await jobs.depth!()).toBe(1)
    const dispatcher = tracing.traceDispatcher(service as unknown as Dispatcher) as unknown as Traced
    expect(await dispatcher.run!({ op: opNamed('hash'), input: {}, octets: false }, ctx)).toMatchObject({
      value: 1,
    })
    const streams = tracing.traceStreams(service as never) as unknown as Traced
    await (tracing.traceJobs(service as never) as unknown as Traced).close!()
    expect(await streams.depth!()).toBe(-1)
    trace.end(200, 'ws_1')
    await tracing.shutdown()
  })

  it('an access rule runs in an authenticate span: decided at once or by a store call (its child)', async () => {
    const tracing = startTracing(config(), { serviceName: 'sdk-auth', serviceVersion: '0' }, silent)
    const store = tracing.traceStore(fakeStore, 'redis')
    type Req = { workspace?: string; allowed?: boolean }
    const outcome = (r: Req) => ({
      workspaceId: r.workspace,
      limits:
        r.allowed === undefined ? undefined : { allowed: r.allowed, reason: r.allowed ? undefined : 'rate' },
    })
    const refusal = (statusCode: number, code: string) => Object.assign(new Error(code), { statusCode, code })
    const check = tracing.traceAccess(
      'apiKey',
      (r: Req, how: 'now' | 'store' | 'refuse' | 'down') => {
        if (how === 'now') {
          // a cached key, limits decided in memory: no promise, no store span
          r.workspace = 'ws_1'
          r.allowed = true
          return undefined
        }
        if (how === 'refuse') throw refusal(401, 'ERR_INVALID_API_KEY')
        if (how === 'down') return Promise.reject(refusal(503, 'ERR_UNAVAILABLE'))
        return store.consume({} as never).then((decision) => {
          r.workspace = 'ws_1'
          r.allowed = (decision as { allowed: boolean }).allowed
        })
      },
      outcome,
    )
    const servers: Record<string, string> = {}
    for (const how of ['now', 'store', 'refuse', 'down'] as const) {
      const trace = tracing.startRequest(request({ requestId: how }))
      trace.enter()
      const r: Req = {}
      try {
        const pending = check(r, how)
        // a rule that decided at once still answers synchronously
        expect(pending === undefined).toBe(how === 'now')
        await pending
      } catch {}
      servers[how] = /^00-[0-9a-f]{32}-([0-9a-f]{16})-01$/.exec(trace.traceresponse)![1]!
      trace.end(200, undefined)
    }
    // no active request: the rule runs, no span
    expect(check({}, 'now')).toBeUndefined()
    await tracing.shutdown()
    const spans = receiver.spans.filter((s) => s.service === 'sdk-auth')
    const auth = (how: string) => {
      const found = spans.filter((s) => s.name === 'authenticate' && s.parentSpanId === servers[how])
      expect(found).toHaveLength(1)
      return found[0]!
    }
    expect(spans.filter((s) => s.name === 'authenticate')).toHaveLength(4)
    expect(auth('now').attributes).toMatchObject({
      'anvil.access': 'apiKey',
      'anvil.workspace': 'ws_1',
      'anvil.limits.allowed': true,
    })
    const viaStore = auth('store')
    expect(viaStore.attributes).toMatchObject({
      'anvil.limits.allowed': false,
      'anvil.limits.reason': 'rate',
    })
    const consume = spans.find((s) => s.name === 'store consume')!
    expect(consume.parentSpanId).toBe(viaStore.spanId)
    expect(consume.startMs).toBeGreaterThanOrEqual(viaStore.startMs)
    expect(consume.endMs).toBeLessThanOrEqual(viaStore.endMs)
    // a refusal is the client's: its code, not an error status; the store unavailable is an error
    expect(auth('refuse').attributes['anvil.error.code']).toBe('ERR_INVALID_API_KEY')
    expect(auth('refuse').status).not.toBe(2)
    expect(auth('down').status).toBe(2)
    expect(auth('down').attributes['error.type']).toBe('ERR_UNAVAILABLE')
  })

  it('an unsampled request (always_off) still answers a valid traceresponse, exports nothing', async () => {
    const tracing = startTracing(
      config({ sampler: 'always_off' }),
      { serviceName: 'sdk-off', serviceVersion: '0' },
      silent,
    )
    const store = tracing.traceStore(fakeStore, 'embedded')
    const trace = tracing.startRequest(request())
    expect(trace.traceresponse).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/)
    trace.enter()
    await store.consume({} as never)
    trace.end(200, undefined)
    await tracing.shutdown()
    expect(receiver.spans.filter((s) => s.service === 'sdk-off')).toEqual([])
  })

  it('a malformed traceparent is ignored: the request starts a trace of its own', async () => {
    const tracing = startTracing(config(), { serviceName: 'sdk-bad', serviceVersion: '0' }, silent)
    const trace = tracing.startRequest(request({ traceparent: '00-zzzz-notvalid-01' }))
    trace.end(200, undefined)
    await tracing.shutdown()
    const [span] = receiver.spans.filter((s) => s.service === 'sdk-bad')
    expect(span?.parentSpanId).toBeUndefined()
    expect(trace.traceresponse).toContain(span!.traceId)
  })

  it('a 5xx marks the server span an error with its code; a failed dispatch and a failed job too', async () => {
    const tracing = startTracing(config(), { serviceName: 'sdk-errors', serviceVersion: '0' }, silent)
    const failing = {
      run: async () => {
        throw Object.assign(new Error('budget'), { code: 'ERR_COMPUTE_LIMIT' })
      },
    } as unknown as Dispatcher
    const trace = tracing.startRequest(request())
    trace.enter()
    await expect(
      Promise.resolve(
        tracing.traceDispatcher(failing).run({ op: opNamed('hash'), input: {}, octets: false }, ctx),
      ),
    ).rejects.toThrow('budget')
    trace.fail('ERR_INTERNAL', new Error('boom'))
    trace.end(500, 'ws_1')
    const job = (name: string) => ({
      id: `job_${name}`,
      queue: 'paid',
      operation: 'hash',
      workspaceId: 'ws_1',
      enqueuedAt: Date.now() - 5,
      attempt: 1,
      // the enqueue's context, as a queue entry carries it (here: the request span's)
      trace: { traceparent: trace.traceresponse },
    })
    const throwing = (name: string, message: string) => async () => {
      throw Object.assign(new Error(message), { name })
    }
    // a job that failed (BullMQ's UnrecoverableError carries its code), and one handed back to the queue
    await expect(
      tracing.runJob(job('UnrecoverableError'), throwing('UnrecoverableError', 'ERR_COMPUTE_LIMIT')),
    ).rejects.toThrow()
    await expect(tracing.runJob(job('DelayedError'), throwing('DelayedError', ''))).rejects.toThrow()
    await tracing.shutdown()
    const spans = receiver.spans.filter((s) => s.service === 'sdk-errors')
    const server = spans.find((s) => s.name === 'POST /v1/hash/:algorithm')!
    expect(server.status).toBe(2)
    expect(server.attributes).toMatchObject({
      'error.type': 'ERR_INTERNAL',
      'http.response.status_code': 500,
    })
    const dispatch = spans.find((s) => s.name === 'dispatch hash')!
    expect(dispatch.parentSpanId).toBe(server.spanId)
    expect(dispatch.status).toBe(2)
    expect(dispatch.attributes['error.type']).toBe('ERR_COMPUTE_LIMIT')
    const runs = spans.filter((s) => s.name === 'job run')
    expect(runs.map((s) => s.parentSpanId)).toEqual([server.spanId, server.spanId])
    const failed = runs.find((s) => s.attributes['messaging.message.id'] === 'job_UnrecoverableError')!
    expect(failed.status).toBe(2)
    expect(failed.attributes['error.type']).toBe('ERR_COMPUTE_LIMIT')
    const requeued = runs.find((s) => s.attributes['messaging.message.id'] === 'job_DelayedError')!
    expect(requeued.status).not.toBe(2)
    expect(requeued.attributes['anvil.job.requeued']).toBe(true)
  })

  it('an unreachable collector holds shutdown at most 3 s, says so in the log and never throws', async () => {
    const lines: { level: string; message: string }[] = []
    const tracing = startTracing(
      config({ url: `http://127.0.0.1:${await closedPort()}/v1/traces` }),
      { serviceName: 'sdk-down', serviceVersion: '0' },
      (level, message) => lines.push({ level, message }),
    )
    for (let i = 0; i < 3; i++) tracing.startRequest(request()).end(200, undefined)
    const started = Date.now()
    await tracing.shutdown()
    expect(Date.now() - started).toBeLessThan(3_000 + 1_000)
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) expect(line.message).toMatch(/^tracing: /)
  })
})
