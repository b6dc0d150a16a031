import type { Execution } from '../exec/decide.ts'
import type { Dispatcher } from '../exec/dispatch.ts'
import type { StreamRunner } from '../exec/stream-run.ts'
import type { JobService } from '../jobs/service.ts'
import type { PlanLimits } from '../limits/plans.ts'
import type { ApiKeyRecord, LimitDecision, Workspace } from '../store/types.ts'

export interface AuthContext {
  key: ApiKeyRecord
  workspace: Workspace
  limits: PlanLimits
  decision: LimitDecision | null
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null
    // the matched route's config (request.routeOptions.config), read once per request
    routeConfig: FastifyRequest['routeOptions']['config']
    // the body limit that applies to this request, set once the key (and so the plan) is known
    bodyLimit: number
    // where this request's op runs (inline, pool, stream), decided once before its body is read, with the
    // place on the pool held for it (src/exec/decide.ts, src/http/body/parsers.ts); null: the route runs no op
    execution: Execution | null
    // HTTP/2 requests with a body: aborts (reason: ERR_REQUEST_TIMEOUT) when the body has not arrived within
    // REQUEST_TIMEOUT_MS (src/http/hooks/body-deadline.ts); null otherwise (Node times HTTP/1.1 itself)
    bodyDeadline: AbortSignal | null
  }
  interface FastifyInstance {
    dispatcher: Dispatcher
    streams: StreamRunner
    jobs: JobService
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
  }
}
