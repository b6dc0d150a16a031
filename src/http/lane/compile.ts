import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import type { AnyOp } from '../../ops/define.ts'
import type { AccessRule, Security } from '../hooks/access.ts'
import { type RefusedHeader, refusedHeadersOf } from '../hooks/header-bounds.ts'
import type { RouteSeries } from '../hooks/record.ts'

// What the lane does for one route, decided once when the route registers, from what the route declares: the
// steps a route does not declare are not in its lane, so they cost its requests nothing.
export interface Lane {
  // the route's pattern: the metrics' and the access line's `route` (never the raw URL)
  url: string
  security: Security
  // the declared access rule; undefined for `none`
  rule: AccessRule | undefined
  // the headers the route reads that refuse the request when over their bound (src/http/hooks/header-bounds.ts)
  headers: readonly RefusedHeader[]
  // the op the route runs: decided (inline, pool, stream) and admitted before its body is read
  op: AnyOp | undefined
  // the route's request counts and durations (src/http/hooks/record.ts), on the listener that records them
  series: RouteSeries | undefined
  // the lane's last two steps, record and settle, once per request (lane.ts; also run for an answer cut off
  // after it started, src/http/answer/cut.ts, for which Fastify runs no onResponse)
  leave: (request: FastifyRequest, reply: FastifyReply, done: () => void) => void
  // JSON answers compressed and large answers sliced (answer/answer.ts): the public listener's; the admin
  // listener's operator calls are answered as they are
  shape: boolean
}

export function compileLane(
  route: RouteOptions,
  ruleOf: (security: Security) => AccessRule | undefined,
  shape: boolean,
): Lane {
  const security = route.config?.security ?? 'none'
  return {
    url: route.url,
    security,
    rule: ruleOf(security),
    headers: refusedHeadersOf(route),
    op: route.config?.op,
    series: undefined,
    leave: (_request, _reply, done) => done(),
    shape,
  }
}
