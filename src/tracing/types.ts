import type { Dispatcher } from '../exec/dispatch.ts'
import type { StreamRunner } from '../exec/stream-run.ts'
import type { JobService } from '../jobs/service.ts'
import type { JobTraceInfo } from '../jobs/types.ts'
import type { TraceCarrier } from '../observability/trace-context.ts'
import type { Store } from '../store/types.ts'

// What the rest of Anvil sees of tracing. Only types here: the OpenTelemetry SDK behind it (sdk.ts) is
// imported on demand by open.ts, so a process without an OTLP endpoint never loads it.

// where the SDK's own warnings go (an unreachable collector, dropped spans), throttled
export type TracingLog = (level: 'warn' | 'error', message: string, detail: Record<string, unknown>) => void

export type { JobTraceInfo } from '../jobs/types.ts'
// W3C Trace Context fields (a job's queue entry carries them too), and what a job worker tells of a job
export type { TraceCarrier } from '../observability/trace-context.ts'

export interface RequestInfo {
  method: string
  // the matched route's pattern (undefined: no route matched)
  route: string | undefined
  path: string
  traceparent: string | undefined
  tracestate: string | undefined
  clientAddress: string
  httpVersion: string
  userAgent: string | undefined
  requestId: string
}

// One request's server span.
export interface RequestTrace {
  // W3C Trace Context Level 2 `traceresponse` value: the trace id and this server span's id
  readonly traceresponse: string
  // makes this span the parent of what the request does next (store calls, dispatch, job enqueue):
  // called when the request starts and again after its body is read (stream events lose the context)
  enter(): void
  // an error the request failed with (its envelope code), recorded as an exception event
  fail(code: string, error: unknown): void
  // ends the span with the response's status code (none: the client hung up first); idempotent
  end(statusCode: number | undefined, workspaceId: string | undefined): void
}

// What a request's access rule decided, read once it has, for its authentication span.
export interface AccessOutcome {
  workspaceId: string | undefined
  // the limits decision, when the rule charged the plan's limits (the apiKey rule)
  limits: { allowed: boolean; reason: string | undefined } | undefined
}

// An access rule's check: returns undefined when it decided at once, a promise when a store is asked,
// and throws (or rejects with) its refusal.
export type AccessCheck<A extends unknown[]> = (...args: A) => undefined | Promise<void>

export interface Tracing {
  startRequest(info: RequestInfo): RequestTrace
  // decorators installed by the composition root: each call becomes a child span of the active request
  traceStore(store: Store, system: 'redis' | 'embedded'): Store
  // every path of the dispatcher (run, runEnvelope, runRaw) and the stream runner (raw bodies streamed to
  // a pool thread) make the same spans: dispatch, and on a pool its wait for a thread and its run there
  traceDispatcher(dispatcher: Dispatcher): Dispatcher
  traceStreams(streams: StreamRunner): StreamRunner
  // an access rule's check inside the request's "authenticate" span (its store calls are its children);
  // `outcome` reads what it decided, after it has (installed by the access plugin, only when tracing is on)
  traceAccess<A extends unknown[]>(
    rule: string,
    check: AccessCheck<A>,
    outcome: (...args: A) => AccessOutcome,
  ): AccessCheck<A>
  traceJobs(jobs: JobService): JobService
  // the active span's context, for a job's queue entry (undefined when nothing is being traced)
  carrier(): TraceCarrier | undefined
  // runs a job inside its "wait" and "run" spans, linked to the trace its enqueue carried
  runJob<T>(job: JobTraceInfo, run: () => Promise<T>): Promise<T>
  // exports what is buffered and stops; spans started afterwards are dropped
  shutdown(): Promise<void>
}
