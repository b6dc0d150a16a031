import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Metrics } from '../metrics.ts'

// Request counts and durations by route pattern (never the raw URL) and plan; one access line per request.
async function metricsPlugin(
  app: FastifyInstance,
  options: { metrics: Metrics; accessLog: boolean },
): Promise<void> {
  const { metrics, accessLog } = options
  app.addHook('onResponse', async function recordRequest(request, reply) {
    const labels = {
      route: request.routeOptions.url ?? 'unmatched',
      method: request.method,
      status_class: `${Math.floor(reply.statusCode / 100)}xx`,
      plan: request.auth?.workspace.plan ?? 'none',
    }
    const seconds = reply.elapsedTime / 1000
    metrics.requests.inc(labels)
    metrics.duration.observe(labels, seconds)
    if (accessLog) {
      request.log.info(
        {
          method: request.method,
          route: labels.route,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 100) / 100,
          workspace: request.auth?.workspace.id,
        },
        'request',
      )
    }
  })
}

export const metricsHooks = fp(metricsPlugin, { name: 'anvil-metrics' })
