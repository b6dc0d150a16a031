import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../errors.ts'
import { rateLimitPolicy, rateLimitState } from '../../limits/headers.ts'
import type { Metrics } from '../../observability/metrics.ts'
import type { ConsumeRequest, LimitDecision, Store } from '../../store/types.ts'
import type { AuthContext } from './auth-context.ts'
import { storeUnavailable } from './store-unavailable.ts'

export interface LimitCharger {
  // one store call: both per-second limits and both monthly quotas decided and charged together; sets the
  // RateLimit headers and throws (or rejects with) the 429 refusal. undefined when decided synchronously
  // (the embedded store): no promise on the request path
  charge(
    request: FastifyRequest,
    reply: FastifyReply,
    who: Omit<AuthContext, 'decision'>,
  ): undefined | Promise<void>
  // onResponse: the gateway's own failures (any 5xx: overload, store unavailable, internal error) are not
  // the customer's to pay for, so what charge() took is given back (docs/decisions.md), once (the lane
  // settles a request once, src/http/lane/lane.ts). Callback-style and synchronous on the success path (no
  // promise per response); the store is called only for a 5xx.
  refundOwnFailure(request: FastifyRequest, reply: FastifyReply, done: () => void): void
}

export function limitCharger(store: Store, metrics: Metrics): LimitCharger {
  function rethrowUnavailable(): never {
    throw storeUnavailable()
  }

  // the decision → request.auth, the RateLimit headers, and the 429 when refused
  function apply(
    request: FastifyRequest,
    reply: FastifyReply,
    who: Omit<AuthContext, 'decision'>,
    decision: LimitDecision,
  ): undefined {
    request.auth = { key: who.key, workspace: who.workspace, limits: who.limits, decision }
    reply.header('ratelimit-policy', rateLimitPolicy(decision, who.limits))
    reply.header('ratelimit', rateLimitState(decision))
    if (!decision.allowed) {
      const quota = decision.reason === 'quota' || decision.reason === 'key_quota'
      metrics.limitRefusals.inc({ reason: quota ? 'quota' : 'rate', plan: who.workspace.plan })
      reply.header('retry-after', String(decision.retryAfter))
      throw new AppError(quota ? 'ERR_QUOTA_EXCEEDED' : 'ERR_RATE_LIMITED', undefined, {
        policy: decision.reason,
        retry_after_seconds: decision.retryAfter,
      })
    }
    return undefined
  }

  return {
    charge(request, reply, who) {
      const { key, workspace, limits } = who
      const req: ConsumeRequest = {
        workspaceId: workspace.id,
        keyId: key.id,
        mode: key.mode,
        keyRatePerSecond: limits.key_rate_per_second,
        workspaceRatePerSecond: limits.workspace_rate_per_second,
        monthlyQuota: limits.monthly_quota,
        keyMonthlyQuota: key.monthly_quota,
        // job status polls and other reads of what was already paid for (route config `charge`)
        rateOnly: request.routeConfig.charge === 'rate-only',
      }
      if (store.consumeNow) {
        let decision: LimitDecision
        try {
          decision = store.consumeNow(req)
        } catch {
          throw storeUnavailable()
        }
        return apply(request, reply, who, decision)
      }
      return store.consume(req).then((decision) => apply(request, reply, who, decision), rethrowUnavailable)
    },

    refundOwnFailure(request, reply, done) {
      const charge = request.auth?.decision?.charge
      // an answer cut off after it started is settled by what its failure would have answered
      const status = request.answerCut?.status ?? reply.statusCode
      if (!charge || status < 500) return done()
      store.refund(charge).then(
        () => {
          metrics.chargeRefunds.inc()
          done()
        },
        (err: unknown) => {
          request.log.warn({ err, workspace_id: charge.workspaceId }, 'refund of a failed request failed')
          done()
        },
      )
    },
  }
}
