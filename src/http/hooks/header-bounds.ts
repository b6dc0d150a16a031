import type { IncomingHttpHeaders } from 'node:http'
import type { RouteOptions } from 'fastify'
import type { AppError } from '../../errors.ts'
import { HEADER_BOUNDS, headerTooLarge, lastWithinBound, withinBound } from '../../lib/header-bounds.ts'

// The headers a route reads whose meaning cannot be guessed when they are cut: over its bound, such a header
// refuses the request (431 ERR_HEADER_TOO_LARGE, RFC 6585 §5, which asks to name the header) in the lane's
// identify step, before the access rule reads a key, the body is read or anything is charged.
export type RefusedHeader = 'accept' | 'authorization' | 'content-type' | 'cookie'

const BODYLESS = new Set(['GET', 'HEAD'])

// The refused headers a route parses, from what it declares: Accept if it answers JSON or bytes, Content-Type
// if it takes a body, Authorization under the apiKey and admin rules, Cookie under the console's.
export function refusedHeadersOf(route: RouteOptions): RefusedHeader[] {
  const config = route.config as { doc?: { binaryResponse?: boolean }; security?: string } | undefined
  const headers: RefusedHeader[] = []
  if (config?.doc?.binaryResponse) headers.push('accept')
  if ([route.method].flat().some((m) => !BODYLESS.has(m))) headers.push('content-type')
  if (config?.security === 'apiKey' || config?.security === 'admin') headers.push('authorization')
  if (config?.security === 'sessionCookie') headers.push('cookie')
  return headers
}

// The first of `names` over its bound, as the refusal; undefined when all are within.
export function overBound(
  headers: IncomingHttpHeaders,
  names: readonly RefusedHeader[],
): AppError | undefined {
  for (const name of names) {
    const value = headers[name]
    if (typeof value === 'string' && !withinBound(value, HEADER_BOUNDS[name])) return headerTooLarge(name)
  }
  return undefined
}

// X-Forwarded-For is parsed whole by proxy-addr each time request.ip is read (a 64 KiB one cost 18-38 ms
// with TRUST_PROXY as CIDRs). Only the hops nearest the gateway can be trusted, so a longer one is cut to its
// last 32 elements within 2 KiB (none left: dropped) before anything reads the address.
export function boundForwardedFor(headers: IncomingHttpHeaders): void {
  const value = headers['x-forwarded-for']
  const bound = HEADER_BOUNDS['x-forwarded-for']
  if (typeof value !== 'string' || withinBound(value, bound)) return
  const kept = lastWithinBound(value, bound)
  if (kept === undefined) delete headers['x-forwarded-for']
  else headers['x-forwarded-for'] = kept
}
