import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { PLAN_NAMES } from '../../limits/plans.ts'
import type { AccessLog } from '../../observability/access-log.ts'
import { batchedChild } from '../../observability/batched-counter.ts'
import { batchedHistogramChild } from '../../observability/batched-histogram.ts'
import type { Metrics } from '../../observability/metrics.ts'

// password verifications are also counted per key (metrics.ts: verifyKeys), as a login endpoint is watched
const VERIFY_ROUTE = '/v1/password/verify'
const STATUS_CLASS = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx']
// an HTTP/2 client may send any token as :method: label (and log) only the ones a route can have
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
const INIT_CLASSES = ['2xx', '4xx', '5xx']
const PLANS = ['none', ...PLAN_NAMES]
const PLAN_INDEX = new Map(PLANS.map((plan, i) => [plan, i]))

interface Child {
  inc(): void
  observe(seconds: number): void
}

// A route's series, made when the route registers and kept on its lane: by method, then status class × plan
// (a request finds its child by two indexes, no label string or map of strings per request).
export type RouteSeries = Record<string, (Child | undefined)[]>

export interface Recorder {
  // at registration: the route's series, at zero
  initRoute(route: RouteOptions): RouteSeries
  // the lane's record step, once the answer is out (`series`: the matched route's, none for an unmatched one)
  record(request: FastifyRequest, reply: FastifyReply, series: RouteSeries | undefined): void
}

// Request counts and durations by route pattern (never the raw URL) and plan; one access line per request.
export function recorder(options: { metrics: Metrics; accessLog: AccessLog | undefined }): Recorder {
  const { metrics, accessLog: writeAccessLine } = options
  // label sets are few (routes × methods × status classes × plans): resolve each child once
  const children = new Map<string, Child>()
  function childFor(route: string, method: string, statusClass: string, plan: string): Child {
    const id = `${route}|${method}|${statusClass}|${plan}`
    let child = children.get(id)
    if (!child) {
      const labels = { route, method, status_class: statusClass, plan }
      const counter = batchedChild(metrics.requests, labels)
      const histogram = batchedHistogramChild(metrics.duration, labels)
      child = { inc: () => counter.inc(), observe: (v) => histogram.observe(v) }
      children.set(id, child)
    }
    return child
  }
  // Every route's series exist from boot (at 0), so a panel or alert on 5xx reads 0 on a healthy stack:
  // its methods × 2xx/4xx/5xx × plans (`none` only, for a route that takes no key); the duration
  // histogram for 2xx only (it is the one the latency panels filter on; the others appear with traffic).
  // HEAD routes Fastify adds beside GET are left to appear with use. Cardinality: docs/operations.md.
  function initRoute(route: RouteOptions): RouteSeries {
    const plans = route.config?.family ? PLANS : ['none']
    const series: RouteSeries = {}
    for (const method of [route.method].flat()) {
      series[method] = []
      if (method === 'HEAD' || !METHODS.has(method)) continue
      for (const plan of plans) {
        for (const statusClass of INIT_CLASSES) {
          childFor(route.url, method, statusClass, plan)
          const labels = { route: route.url, method, status_class: statusClass, plan }
          metrics.requests.inc(labels, 0)
          if (statusClass === '2xx') metrics.duration.zero(labels)
        }
      }
    }
    return series
  }
  function record(request: FastifyRequest, reply: FastifyReply, series: RouteSeries | undefined): void {
    const route = request.routeConfig?.url ?? 'unmatched'
    const cut = request.answerCut
    if (cut !== null) {
      recordCut(request, reply, route, cut.code)
      return
    }
    // a client that hung up got no answer (whatever status the reply object holds): the abort is logged
    // at debug by the error handler, and is neither a response to count nor an access line
    if ((request.raw as { aborted?: boolean }).aborted === true) return
    const auth = request.auth
    const status = reply.statusCode
    const elapsedMs = reply.elapsedTime
    const plan = auth?.workspace.plan ?? 'none'
    const method = METHODS.has(request.method) ? request.method : 'OTHER'
    const classIndex = Math.floor(status / 100)
    const statusClass = STATUS_CLASS[classIndex] ?? 'other'
    let child: Child
    const own = series?.[method]
    const slot = classIndex * PLANS.length + (PLAN_INDEX.get(plan) ?? 0)
    if (own !== undefined && STATUS_CLASS[classIndex] !== undefined) {
      child = own[slot] ??= childFor(route, method, statusClass, plan)
    } else {
      child = childFor(route, method, statusClass, plan)
    }
    child.inc()
    child.observe(elapsedMs / 1000)
    if (route === VERIFY_ROUTE && auth) {
      const outcome = status === 200 ? 'ok' : 'refused'
      metrics.passwordVerifications.inc({ outcome, plan })
      metrics.verifyKeys.add(auth.key.id, outcome)
    }
    writeAccessLine?.({
      reqId: request.id,
      method,
      route,
      status,
      ms: Math.round(elapsedMs * 100) / 100,
      workspace: auth?.workspace.id,
    })
  }
  // An answer broken off after it started (src/http/answer/cut.ts): neither a success nor a 5xx, so not in
  // the request counts (a 5xx alert must not move at a tenant's will) but in a counter of its own, by the
  // code the failure would have answered; its access line has the status that went out, and `cut`.
  function recordCut(request: FastifyRequest, reply: FastifyReply, route: string, code: string): void {
    metrics.answersCut.inc({ route, code })
    writeAccessLine?.({
      reqId: request.id,
      method: METHODS.has(request.method) ? request.method : 'OTHER',
      route,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
      workspace: request.auth?.workspace.id,
      cut: code,
    })
  }
  return { initRoute, record }
}
