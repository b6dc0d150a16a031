import { AsyncLocalStorage } from 'node:async_hooks'
import { performance } from 'node:perf_hooks'
import {
  type Attributes,
  type Context,
  DiagLogLevel,
  defaultTextMapGetter,
  defaultTextMapSetter,
  diag,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources'
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base'
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions'
import type { StreamResult } from '../../workers/stream-protocol.ts'
import type { Dispatched, Dispatcher } from '../exec/dispatch.ts'
import type { StreamHandle, StreamRunner } from '../exec/stream-run.ts'
import type { JobService } from '../jobs/service.ts'
import type { Store } from '../store/types.ts'
import type { SamplerName, TracingConfig } from './settings.ts'
import type {
  AccessCheck,
  AccessOutcome,
  JobTraceInfo,
  RequestInfo,
  RequestTrace,
  TraceCarrier,
  Tracing,
  TracingLog,
} from './types.ts'

// The OpenTelemetry side of tracing, loaded only when an OTLP endpoint is configured (open.ts). Nothing
// here is registered globally (no global tracer provider, context manager or propagator, no
// monkey-patching): Anvil's own seams create every span, and the request's span travels in one
// AsyncLocalStorage of this module.

// incubating semantic conventions, spelled out rather than imported from the unstable entry point
const DB_SYSTEM_NAME = 'db.system.name'
const DB_OPERATION_NAME = 'db.operation.name'
const MESSAGING_SYSTEM = 'messaging.system'
const MESSAGING_OPERATION_TYPE = 'messaging.operation.type'
const MESSAGING_DESTINATION = 'messaging.destination.name'
const MESSAGING_MESSAGE_ID = 'messaging.message.id'

// errors a BullMQ processor throws to hand its job back to the queue
const REQUEUED = new Set(['DelayedError', 'WaitingError'])

// the store's lifecycle calls are not request work
const UNTRACED_STORE_CALLS = new Set<PropertyKey>(['ready', 'close'])

function sampler(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler()
    case 'always_off':
      return new AlwaysOffSampler()
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio)
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() })
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) })
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() })
  }
}

// epoch milliseconds with sub-millisecond precision. Every span's start and end are given explicitly from
// this one clock: left to the SDK, a span's times are anchored to Date.now() (whole milliseconds), so a
// child could appear to start before, or end after, its parent.
function now(): number {
  return performance.timeOrigin + performance.now()
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code === 'string') return code
  // a failed job: BullMQ's UnrecoverableError carries the job's ERR_* code as its message
  if (err instanceof Error && /^ERR_[A-Z_]+$/.test(err.message)) return err.message
  return err instanceof Error ? err.name : 'error'
}

function failSpan(span: Span, err: unknown): void {
  const code = errorCode(err)
  span.setAttribute(ATTR_ERROR_TYPE, code)
  if (err instanceof Error) span.recordException(err)
  span.setStatus({ code: SpanStatusCode.ERROR, message: code })
}

// ends `span` when `work` settles, passing its value or error through
function endWith<T>(span: Span, work: Promise<T>, onValue?: (value: T) => void): Promise<T> {
  return work.then(
    (value) => {
      onValue?.(value)
      span.end(now())
      return value
    },
    (err: unknown) => {
      failSpan(span, err)
      span.end(now())
      throw err
    },
  )
}

// how long a shutdown waits for the last spans to be exported
const SHUTDOWN_FLUSH_MS = 3_000
// at most one line per this long: a collector that is down fails every export (every few seconds)
const DIAG_INTERVAL_MS = 60_000

// The SDK reports export failures and dropped spans through its diagnostic logger, silent unless one is
// set: route warnings and errors to the process log, throttled, saying how many were held back.
function reportDiagnostics(log: TracingLog): void {
  let last = 0
  let held = 0
  const write = (level: 'warn' | 'error') =>
    function diagnostic(message: string, ...args: unknown[]) {
      const at = Date.now()
      if (at - last < DIAG_INTERVAL_MS) {
        held++
        return
      }
      last = at
      const detail = args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ')
      log(level, `tracing: ${message}${detail ? ` ${detail}` : ''}`, { held_back: held })
      held = 0
    }
  const quiet = () => {}
  diag.setLogger(
    { error: write('error'), warn: write('warn'), info: quiet, debug: quiet, verbose: quiet },
    DiagLogLevel.WARN,
  )
}

function flags(traceFlags: number): string {
  return traceFlags.toString(16).padStart(2, '0')
}

export function startTracing(
  config: TracingConfig,
  service: { serviceName: string; serviceVersion: string },
  log: TracingLog,
): Tracing {
  reportDiagnostics(log)
  const resource = defaultResource()
    .merge(
      resourceFromAttributes({
        [ATTR_SERVICE_NAME]: service.serviceName,
        [ATTR_SERVICE_VERSION]: service.serviceVersion,
      }),
    )
    // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, as the specification says
    .merge(detectResources({ detectors: [envDetector] }))
  const provider = new BasicTracerProvider({
    resource,
    sampler: sampler(config.sampler, config.ratio),
    // OTEL_BSP_* tune the batch; OTEL_EXPORTER_OTLP_(TRACES_)HEADERS/TIMEOUT/COMPRESSION the exporter
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: config.url }))],
  })
  const tracer: Tracer = provider.getTracer('anvil', service.serviceVersion)
  const propagator = new W3CTraceContextPropagator()
  const active = new AsyncLocalStorage<Context>()

  // the active request's context, when its span is still being recorded (an ended or unsampled span
  // gets no children: timers and batches that outlive a request do not attach to it)
  function recordingParent(): Context | undefined {
    const ctx = active.getStore()
    return ctx && trace.getSpan(ctx)?.isRecording() ? ctx : undefined
  }

  function extract(carrier: Partial<TraceCarrier>): Context {
    if (!carrier.traceparent) return ROOT_CONTEXT
    return propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter)
  }

  function startRequest(info: RequestInfo): RequestTrace {
    const parent = extract({ traceparent: info.traceparent, tracestate: info.tracestate })
    const attributes: Attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: info.method,
      [ATTR_URL_SCHEME]: 'https',
      [ATTR_URL_PATH]: info.path,
      [ATTR_CLIENT_ADDRESS]: info.clientAddress,
      [ATTR_NETWORK_PROTOCOL_VERSION]: info.httpVersion,
      'anvil.request_id': info.requestId,
    }
    if (info.route !== undefined) attributes[ATTR_HTTP_ROUTE] = info.route
    if (info.userAgent !== undefined) attributes[ATTR_USER_AGENT_ORIGINAL] = info.userAgent
    const span = tracer.startSpan(
      info.route === undefined ? info.method : `${info.method} ${info.route}`,
      { kind: SpanKind.SERVER, startTime: now(), attributes },
      parent,
    )
    const ctx = trace.setSpan(parent, span)
    const { traceId, spanId, traceFlags } = span.spanContext()
    let failure: { code: string; error: unknown } | undefined
    let ended = false
    return {
      traceresponse: `00-${traceId}-${spanId}-${flags(traceFlags)}`,
      enter() {
        active.enterWith(ctx)
      },
      fail(code, error) {
        failure = { code, error }
      },
      end(statusCode, workspaceId) {
        if (ended) return
        ended = true
        if (workspaceId !== undefined) span.setAttribute('anvil.workspace', workspaceId)
        if (failure) span.setAttribute('anvil.error.code', failure.code)
        if (statusCode === undefined) {
          span.setAttribute('anvil.aborted', true)
          span.setAttribute(ATTR_ERROR_TYPE, 'aborted')
        } else {
          span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, statusCode)
        }
        if (statusCode !== undefined && statusCode >= 500) {
          // a server span is an error only for a 5xx: a 4xx is the client's, and a correct answer
          span.setAttribute(ATTR_ERROR_TYPE, failure?.code ?? String(statusCode))
          if (failure?.error instanceof Error) span.recordException(failure.error)
          span.setStatus({ code: SpanStatusCode.ERROR, message: failure?.code ?? String(statusCode) })
        }
        span.end(now())
      },
    }
  }

  function traceStore(store: Store, system: 'redis' | 'embedded'): Store {
    const wrapped = new Map<PropertyKey, unknown>()
    return new Proxy(store, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown
        if (typeof value !== 'function') return value
        let fn = wrapped.get(prop)
        // the store's own methods read its private fields: every one is called on the store itself, never
        // on this proxy (an unbound `ready` made /readyz 503 and SIGTERM a TypeError, issue 27)
        if (!fn && UNTRACED_STORE_CALLS.has(prop)) {
          fn = (value as (...a: unknown[]) => unknown).bind(target)
          wrapped.set(prop, fn)
        }
        if (!fn) {
          const name = String(prop)
          fn = function tracedStoreCall(...args: unknown[]) {
            const parent = recordingParent()
            const startTime = parent ? now() : 0
            const result = (value as (...a: unknown[]) => unknown).apply(target, args)
            // a synchronous helper (subscribe, invalidationLive) is not a store call: no span
            if (!parent || !(result instanceof Promise)) return result
            const span = tracer.startSpan(
              `store ${name}`,
              {
                kind: system === 'redis' ? SpanKind.CLIENT : SpanKind.INTERNAL,
                startTime,
                attributes: {
                  [DB_SYSTEM_NAME]: system === 'redis' ? 'redis' : 'anvil.embedded',
                  [DB_OPERATION_NAME]: name,
                },
              },
              parent,
            )
            return endWith(span, result, (outcome) => {
              // the limits decision, so a refused request's trace says why
              const decision = outcome as { allowed?: unknown; reason?: unknown } | undefined
              if (name === 'consume' && typeof decision?.allowed === 'boolean') {
                span.setAttribute('anvil.limits.allowed', decision.allowed)
                if (typeof decision.reason === 'string')
                  span.setAttribute('anvil.limits.reason', decision.reason)
              }
            })
          }
          wrapped.set(prop, fn)
        }
        return fn
      },
    })
  }

  // The queue wait and the run of pool work, children of its dispatch span, built from the timings the
  // dispatcher or the stream runner reports (the thread itself creates no span: it has no exporter).
  function poolSpans(
    parent: Context,
    dispatch: Span,
    op: string,
    pool: string,
    times: { waitFrom: number; ranAt: number; endAt: number },
    runAttributes?: Attributes,
  ): void {
    const inside = trace.setSpan(parent, dispatch)
    const attributes = { 'anvil.pool': pool, 'anvil.op': op }
    tracer.startSpan('pool wait', { startTime: times.waitFrom, attributes }, inside).end(times.ranAt)
    tracer
      .startSpan(
        'pool run',
        { startTime: times.ranAt, attributes: { ...attributes, ...runAttributes } },
        inside,
      )
      .end(times.endAt)
  }

  // The dispatch span of a request's op: ended at once for inline work, when its answer is there otherwise,
  // with, for pool work, its queue-wait and run children.
  function traceDispatcher(dispatcher: Dispatcher): Dispatcher {
    const run: Dispatcher['run'] = (work, ctx) => {
      const parent = recordingParent()
      if (!parent) return dispatcher.run(work, ctx)
      const op = work.op.name
      const startedAt = now()
      const span = tracer.startSpan(
        `dispatch ${op}`,
        {
          startTime: startedAt,
          attributes: {
            'anvil.op': op,
            'anvil.workspace': ctx.workspaceId,
            'anvil.bytes': ctx.execution.declaredBytes ?? 0,
          },
        },
        parent,
      )
      let answer: ReturnType<Dispatcher['run']>
      try {
        answer = dispatcher.run(work, ctx)
      } catch (err) {
        failSpan(span, err)
        span.end(now())
        throw err
      }
      if (typeof (answer as { then?: unknown }).then !== 'function') {
        span.setAttribute('anvil.pool', 'inline')
        span.end(now())
        return answer
      }
      return endWith(span, answer as Promise<Dispatched>, (done) => {
        span.setAttribute('anvil.pool', done.where)
        if (done.where === 'inline') return
        // the thread's times, on its own clock, kept within the dispatch
        const endAt = now()
        const ranAt = Math.min(Math.max(startedAt + done.waitMs, startedAt), endAt)
        poolSpans(parent, span, op, done.where, {
          waitFrom: startedAt,
          ranAt,
          endAt: Math.min(ranAt + done.runMs, endAt),
        })
      })
    }
    return delegate(dispatcher, { run })
  }

  // A streamed body's output, passed through; when it ends, so does the dispatch span, with its pool
  // children. The wait runs from the dispatch's start (the admission wait, with the body unread, included)
  // to the thread taking the task; the run from there to the task's end, in wall time: the thread holds
  // the task while the body is in transit (`anvil.busy_ms`: its CPU time on the body, what the budget
  // counts).
  async function* tracedOutput(
    handle: StreamHandle,
    parent: Context,
    span: Span,
    op: string,
    startedAt: number,
    openedAt: number,
  ): AsyncGenerator<Uint8Array, StreamResult> {
    let settled = false
    try {
      const result = yield* handle.output
      settled = true
      const endAt = now()
      const { where, waitMs, runMs } = handle.timing()
      span.setAttribute('anvil.bytes', result.bytes)
      const ranAt = Math.min(Math.max(openedAt + waitMs, startedAt), endAt)
      poolSpans(parent, span, op, where, { waitFrom: startedAt, ranAt, endAt }, { 'anvil.busy_ms': runMs })
      span.end(endAt)
      return result
    } catch (err) {
      settled = true
      failSpan(span, err)
      span.end(now())
      throw err
    } finally {
      // left before its end (the answer was broken off or its reader went away): the task is cancelled
      if (!settled) {
        span.setAttribute('anvil.cancelled', true)
        span.end(now())
      }
    }
  }

  function traceStreams(streams: StreamRunner): StreamRunner {
    const open: StreamRunner['open'] = (job, source, ctx) => {
      const parent = recordingParent()
      if (!parent) return streams.open(job, source, ctx)
      const startedAt = now()
      const span = tracer.startSpan(
        `dispatch ${job.op}`,
        {
          startTime: startedAt,
          attributes: { 'anvil.op': job.op, 'anvil.workspace': ctx.workspaceId, 'anvil.streamed': true },
        },
        parent,
      )
      return streams.open(job, source, ctx).then(
        (handle) => {
          span.setAttribute('anvil.pool', handle.timing().where)
          const output = tracedOutput(handle, parent, span, job.op, startedAt, now())
          return { output, timing: handle.timing }
        },
        (err: unknown) => {
          failSpan(span, err)
          span.end(now())
          throw err
        },
      )
    }
    return delegate(streams, { open })
  }

  // The access rule as one span: for an API key its verification (the cache, else `store lookupKey`), its
  // scope and plan, and the limits charge (`store consume` on Redis; decided in memory on the embedded
  // store, which makes no store span: the decision is on this span). A refusal is the client's (a 4xx):
  // its code is recorded without an error status; a 5xx (the store unavailable) is an error.
  function traceAccess<A extends unknown[]>(
    rule: string,
    check: AccessCheck<A>,
    outcome: (...args: A) => AccessOutcome,
  ): AccessCheck<A> {
    return function tracedAccess(...args: A): undefined | Promise<void> {
      const parent = recordingParent()
      if (!parent) return check(...args)
      const span = tracer.startSpan(
        'authenticate',
        { startTime: now(), attributes: { 'anvil.access': rule } },
        parent,
      )
      const finish = (err?: unknown) => {
        const { workspaceId, limits } = outcome(...args)
        if (workspaceId !== undefined) span.setAttribute('anvil.workspace', workspaceId)
        if (limits) {
          span.setAttribute('anvil.limits.allowed', limits.allowed)
          if (limits.reason !== undefined) span.setAttribute('anvil.limits.reason', limits.reason)
        }
        if (err !== undefined) {
          const status = (err as { statusCode?: unknown } | null)?.statusCode
          if (typeof status === 'number' && status < 500)
            span.setAttribute('anvil.error.code', errorCode(err))
          else failSpan(span, err)
        }
        span.end(now())
      }
      let pending: undefined | Promise<void>
      try {
        // the store calls the check makes, now or in its continuations, are this span's children
        pending = active.run(trace.setSpan(parent, span), check, ...args)
      } catch (err) {
        finish(err)
        throw err
      }
      if (pending === undefined) {
        finish()
        return undefined
      }
      return pending.then(
        () => finish(),
        (err: unknown) => {
          finish(err)
          throw err
        },
      )
    }
  }

  function traceJobs(jobs: JobService): JobService {
    const submit: JobService['submit'] = (ctx, body) => {
      const parent = recordingParent()
      if (!parent) return jobs.submit(ctx, body)
      const span = tracer.startSpan(
        'job enqueue',
        {
          kind: SpanKind.PRODUCER,
          startTime: now(),
          attributes: {
            [MESSAGING_SYSTEM]: jobs.kind === 'redis' ? 'bullmq' : 'anvil.embedded',
            [MESSAGING_OPERATION_TYPE]: 'send',
            'anvil.workspace': ctx.workspaceId,
          },
        },
        parent,
      )
      // the job's queue entry carries this span's context (carrier(), called by the backend)
      const work = active.run(trace.setSpan(parent, span), () => jobs.submit(ctx, body))
      return endWith(span, work, (job) => {
        span.setAttribute(MESSAGING_MESSAGE_ID, job.id)
        span.setAttribute(MESSAGING_DESTINATION, job.tier)
        span.setAttribute('anvil.job.operation', job.operation)
      })
    }
    return delegate(jobs, { submit })
  }

  function carrier(): TraceCarrier | undefined {
    const ctx = active.getStore()
    if (!ctx || !trace.getSpan(ctx)) return undefined
    const out: Partial<TraceCarrier> = {}
    propagator.inject(ctx, out, defaultTextMapSetter)
    return out.traceparent ? (out as TraceCarrier) : undefined
  }

  function runJob<T>(job: JobTraceInfo, run: () => Promise<T>): Promise<T> {
    const parent = extract(job.trace ?? {})
    const attributes: Attributes = {
      [MESSAGING_SYSTEM]: 'bullmq',
      [MESSAGING_DESTINATION]: job.queue,
      [MESSAGING_MESSAGE_ID]: job.id,
      'anvil.workspace': job.workspaceId,
      'anvil.job.operation': job.operation,
      'anvil.job.attempt': job.attempt,
    }
    const startedAt = now()
    // from the enqueue to this worker taking it up: the time spent in BullMQ
    tracer
      .startSpan('job wait', { startTime: Math.min(job.enqueuedAt, startedAt), attributes }, parent)
      .end(startedAt)
    const span = tracer.startSpan(
      'job run',
      {
        kind: SpanKind.CONSUMER,
        startTime: startedAt,
        attributes: { ...attributes, [MESSAGING_OPERATION_TYPE]: 'process' },
      },
      parent,
    )
    return active.run(trace.setSpan(parent, span), run).then(
      (value) => {
        span.end(now())
        return value
      },
      (err: unknown) => {
        // BullMQ's way of putting a job back (shutdown, a full pool): not a failure, it runs again
        if (REQUEUED.has((err as Error | null)?.name ?? '')) span.setAttribute('anvil.job.requeued', true)
        else failSpan(span, err)
        span.end(now())
        throw err
      },
    )
  }

  return {
    startRequest,
    traceStore,
    traceDispatcher,
    traceStreams,
    traceAccess,
    traceJobs,
    carrier,
    runJob,
    async shutdown() {
      // an unreachable collector must neither fail nor stall the process's shutdown
      let timer: NodeJS.Timeout | undefined
      const flushed = provider.shutdown().then(
        () => true,
        (err: unknown) => {
          log('warn', `tracing: spans lost at shutdown: ${err instanceof Error ? err.message : err}`, {})
          return true
        },
      )
      const gaveUp = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), SHUTDOWN_FLUSH_MS)
      })
      if (!(await Promise.race([flushed, gaveUp])))
        log('warn', `tracing: spans not exported within ${SHUTDOWN_FLUSH_MS} ms of shutdown`, {})
      clearTimeout(timer)
    },
  }
}

// `target` with some methods replaced; every other property read from it (bound), whatever it grows
function delegate<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get(t, prop) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof T]
      const value = Reflect.get(t, prop, t) as unknown
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value
    },
  })
}
