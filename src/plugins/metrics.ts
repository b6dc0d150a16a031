import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Metrics } from '../metrics.ts'
import { accessLog as createAccessLog } from '../observability/access-log.ts'
import { batchedChild } from '../observability/batched-counter.ts'

const STATUS_CLASS = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx']
// an HTTP/2 client may send any token as :method: label (and log) only the ones a route can have
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

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
      const counter = batchedChild(metrics.requests, labels)
      const histogram = metrics.duration.labels(labels)
      child = { inc: () => counter.inc(), observe: (v) => histogram.observe(v) }
      children.set(id, child)
    }
    return child
  }
  const writeAccessLine = accessLog ? createAccessLog(app.log) : undefined
  app.addHook('onResponse', function recordRequest(request, reply, done) {
    const route = request.routeConfig?.url ?? 'unmatched'
    const auth = request.auth
    const status = reply.statusCode
    const elapsedMs = reply.elapsedTime
    const plan = auth?.workspace.plan ?? 'none'
    const method = METHODS.has(request.method) ? request.method : 'OTHER'
    const child = childFor(route, method, STATUS_CLASS[Math.floor(status / 100)] ?? 'other', plan)
    child.inc()
    child.observe(elapsedMs / 1000)
    writeAccessLine?.({
      reqId: request.id,
      method,
      route,
      status,
      ms: Math.round(elapsedMs * 100) / 100,
      workspace: auth?.workspace.id,
    })
    done()
  })
}

export const metricsHooks = fp(metricsPlugin, { name: 'anvil-metrics' })
