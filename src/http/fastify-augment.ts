import type { Reservation } from '../exec/admission.ts'
import type { Dispatcher } from '../exec/dispatch.ts'
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
    // the place on its pool this request was given before its body was read (large pool-bound bodies)
    poolReservation: Reservation | null
    // HTTP/2 requests with a body: aborts (reason: ERR_REQUEST_TIMEOUT) when the body has not arrived within
    // REQUEST_TIMEOUT_MS (src/http/hooks/body-deadline.ts); null otherwise (Node times HTTP/1.1 itself)
    bodyDeadline: AbortSignal | null
    // bytes of body actually read (the cost estimate for dispatch); 0 until a parser has read it
    bodyBytes: number
  }
  interface FastifyInstance {
    dispatcher: Dispatcher
    jobs: JobService
  }
  interface FastifyContextConfig {
    // endpoint family for per-key scopes: every route declaring security apiKey declares one
    family?: string
    // accepts application/octet-stream bodies and/or answers raw bytes
    binary?: boolean
    // refused for free-plan workspaces (403 ERR_KEY_SCOPE), before anything is charged
    paidOnly?: boolean
  }
}
