import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../errors.ts'
import { rateLimitHeaders } from '../../limits/headers.ts'
import type { Metrics } from '../../observability/metrics.ts'
import type { Store } from '../../store/types.ts'
import type { AuthContext } from '../fastify-augment.ts'
import { storeUnavailable } from './store-unavailable.ts'

export interface LimitCharger {
  // one store call: both per-second limits and both monthly quotas decided and charged together; sets the
  // RateLimit headers and throws the 429 refusal
  charge(request: FastifyRequest, reply: FastifyReply, who: Omit<AuthContext, 'decision'>): Promise<void>
  // onResponse: the gateway's own failures (any 5xx: overload, store unavailable, internal error) are not
  // the customer's to pay for, so what charge() took is given back (docs/decisions.md). Callback-style and
  // synchronous on the success path (no promise per response); the store is called only for a 5xx.
  refundOwnFailure(request: FastifyRequest, reply: FastifyReply, done: () => void): void
}

export function limitCharger(store: Store, metrics: Metrics): LimitCharger {
  return {
    async charge(request, reply, { key, workspace, limits }) {
      let decision: Awaited<ReturnType<Store['consume']>>
      try {
        decision = await store.consume({
          workspaceId: workspace.id,
          keyId: key.id,
          keyRatePerSecond: limits.key_rate_per_second,
          workspaceRatePerSecond: limits.workspace_rate_per_second,
          monthlyQuota: limits.monthly_quota,
          keyMonthlyQuota: key.monthly_quota,
        })
      } catch {
        throw storeUnavailable()
      }
      request.auth = { key, workspace, limits, decision }
      const headers = rateLimitHeaders(decision)
      reply.header('ratelimit-policy', headers.policy)
      reply.header('ratelimit', headers.state)
      if (!decision.allowed) {
        const quota = decision.reason === 'quota' || decision.reason === 'key_quota'
        metrics.limitRefusals.inc({ reason: quota ? 'quota' : 'rate', plan: workspace.plan })
        reply.header('retry-after', String(decision.retryAfter))
        throw new AppError(quota ? 'ERR_QUOTA_EXCEEDED' : 'ERR_RATE_LIMITED', undefined, {
          policy: decision.reason,
          retry_after_seconds: decision.retryAfter,
        })
      }
    },

    refundOwnFailure(request, reply, done) {
      const charge = request.auth?.decision?.charge
      if (!charge || reply.statusCode < 500) return done()
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
