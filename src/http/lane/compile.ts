import type { RouteOptions } from 'fastify'
import type { AnyOp } from '../../ops/define.ts'
import type { AccessRule, Security } from '../hooks/access.ts'
import type { RouteSeries } from '../hooks/record.ts'

// What the lane does for one route, decided once when the route registers, from what the route declares: the
// steps a route does not declare are not in its lane, so they cost its requests nothing.
export interface Lane {
  // the route's pattern: the metrics' and the access line's `route` (never the raw URL)
  url: string
  security: Security
  // the declared access rule; undefined for `none`
  rule: AccessRule | undefined
  // the op the route runs: decided (inline, pool, stream) and admitted before its body is read
  op: AnyOp | undefined
  // the route's request counts and durations (src/http/hooks/record.ts), on the listener that records them
  series: RouteSeries | undefined
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
    op: route.config?.op,
    series: undefined,
    shape,
  }
}
