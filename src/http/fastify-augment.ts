// The one module augmentation of Fastify: what the gateway adds to its requests, its instance and its
// routes' config, each field with the module that sets it. Imported by nobody: the compiler reads it, and it
// imports only types.
import type { ErrorCode } from '../errors.ts'
import type { Execution } from '../exec/decide.ts'
import type { Dispatcher } from '../exec/dispatch.ts'
import type { StreamRunner } from '../exec/stream-run.ts'
import type { JobService } from '../jobs/service.ts'
import type { AnyOp } from '../ops/define.ts'
import type { IdempotencyRef } from '../store/types.ts'
import type { RequestTrace } from '../tracing/types.ts'
import type { ConsoleAuth } from './console/context.ts'
import type { AccessControl, Security } from './hooks/access.ts'
import type { AuthContext } from './hooks/auth-context.ts'
import type { Lane } from './lane/compile.ts'
import type { RouteDoc } from './openapi/route-doc.ts'

declare module 'fastify' {
  interface FastifyRequest {
    // the caller, its plan's limits and the limiter's decision, once the access rule admitted an API key
    // (src/http/hooks/authenticate.ts); null on other routes
    auth: AuthContext | null
    // the matched route's config (request.routeOptions.config), read once per request (src/http/lane/lane.ts)
    routeConfig: FastifyRequest['routeOptions']['config']
    // the body limit that applies to this request, set once the key (and so the plan) is known
    bodyLimit: number
    // where this request's op runs (inline, pool, stream), decided once before its body is read, with the
    // place on the pool held for it (src/exec/decide.ts, src/http/body/parsers.ts); null: the route runs no op
    execution: Execution | null
    // HTTP/2 requests with a body: aborts (reason: ERR_REQUEST_TIMEOUT) when the body has not arrived within
    // REQUEST_TIMEOUT_MS (src/http/body/body-deadline.ts); null otherwise (Node times HTTP/1.1 itself)
    bodyDeadline: AbortSignal | null
    // an Idempotency-Key request's record (src/http/hooks/idempotency.ts)
    idempotency?: { scope: string; key: string; ref: IdempotencyRef; fingerprint: string; settled: boolean }
    // this request's server span (null until traceRequest runs; src/http/hooks/trace.ts is only registered
    // when tracing is on)
    trace: RequestTrace | null
    // the signed-in person on console routes; null when there is no valid session (src/http/console/)
    consoleAuth: ConsoleAuth | null
    // set when the answer broke off after its status and first bytes went out (src/http/answer/cut.ts): what
    // it would have been answered with had it come before; null otherwise
    answerCut: { code: ErrorCode; status: number } | null
    // the lane's record and settle steps have run for this request (they run once: src/http/lane/lane.ts)
    laneLeft: boolean
  }
  interface FastifyInstance {
    dispatcher: Dispatcher
    streams: StreamRunner
    jobs: JobService
    // the declared access rules (src/http/hooks/access.ts)
    access: AccessControl
  }
  interface FastifyContextConfig {
    // endpoint family for per-key scopes: every route declaring security apiKey declares one
    family?: string
    // accepts application/octet-stream bodies and/or answers raw bytes
    binary?: boolean
    // refused for free-plan workspaces (403 ERR_KEY_SCOPE), before anything is charged
    paidOnly?: boolean
    // what an admitted request costs (apiKey routes): 'full' (default) the per-second limits, the monthly
    // quotas and usage; 'rate-only' the per-second limits alone, for reads of something already paid for
    // (job status polls): never refused for quota, never counted in usage (docs/decisions.md "Limits")
    charge?: 'full' | 'rate-only'
    // the one access rule of this route, checked after routing by the access hook; mandatory
    security?: Security
    // a create that honours Idempotency-Key (Stripe's semantics; docs/api.md)
    idempotent?: boolean
    // what the route says about itself for the OpenAPI document (src/http/route/define-route.ts)
    doc?: RouteDoc
    // the operation the route runs (src/ops/define.ts)
    op?: AnyOp
    // the route's lane (src/http/lane/lane.ts); the not-found route has none
    lane?: Lane
  }
}
