import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Metrics } from '../metrics.ts'

// Request counts and durations by route pattern (never the raw URL) and plan; one access line per request.
async function metricsPlugin(
  app: FastifyInstance,
  options: { metrics: Metrics; accessLog: boolean },
): Promise<void> {
  const { metrics, accessLog } = options
  // label sets are few (routes × methods × status classes × plans): resolve each child once
  const children = new Map<string, { inc(): void; observe(v: number): void }>()
  function childFor(route: string, method: string, statusClass: string, plan: string) {
    const id = `${route}|${method}|${statusClass}|${plan}`
    let child = children.get(id)
    if (!child) {
      const labels = { route, method, status_class: statusClass, plan }
      const counter = metrics.requests.labels(labels)
      const histogram = metrics.duration.labels(labels)
      child = { inc: () => counter.inc(), observe: (v) => histogram.observe(v) }
      children.set(id, child)
    }
    return child
  }
  app.addHook('onResponse', async function recordRequest(request, reply) {
    const route = request.routeOptions.url ?? 'unmatched'
    const child = childFor(
      route,
      request.method,
      `${Math.floor(reply.statusCode / 100)}xx`,
      request.auth?.workspace.plan ?? 'none',
    )
    child.inc()
    child.observe(reply.elapsedTime / 1000)
    if (accessLog) {
      request.log.info(
        {
          method: request.method,
          route,
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
