import { timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { AppError } from '../../errors.ts'
import { HEADER_BOUNDS } from '../../lib/header-bounds.ts'

function refuse(message: string): AppError {
  return new AppError('ERR_CSRF', message)
}

function sameOrigin(request: FastifyRequest, origin: string): boolean {
  try {
    if (request.host.length > HEADER_BOUNDS.host.bytes) return false
    const expected = new URL(`${request.protocol}://${request.host}`)
    const actual = new URL(origin)
    return actual.protocol === expected.protocol && actual.host === expected.host
  } catch {
    return false
  }
}

// Every state-changing console request must come from the console's own pages: the browser's
// Sec-Fetch-Site (when sent) says same-origin and the Origin (or, failing that, Referer) is ours.
// With SameSite=Strict cookies and JSON-only bodies this is the first of three independent locks.
export function checkOrigin(request: FastifyRequest): void {
  const site = request.headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin') {
    throw refuse('Cross-site requests cannot change anything in the console.')
  }
  const origin = request.headers.origin ?? request.headers.referer
  // over its bound (2 KiB) an origin is not parsed: foreign
  if (
    !origin ||
    origin === 'null' ||
    origin.length > HEADER_BOUNDS.origin.bytes ||
    !sameOrigin(request, origin)
  ) {
    throw refuse('The request must come from the console itself (Origin header missing or foreign).')
  }
}

// The synchronizer token of the session, sent back by the page in X-CSRF-Token.
export function checkCsrfToken(request: FastifyRequest, expected: string): void {
  const sent = request.headers['x-csrf-token']
  if (typeof sent !== 'string' || sent.length === 0) throw refuse('The X-CSRF-Token header is missing.')
  if (sent.length > HEADER_BOUNDS['x-csrf-token'].bytes) throw refuse('The X-CSRF-Token header is wrong.')
  const a = Buffer.from(sent)
  const b = Buffer.from(expected)
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw refuse('The X-CSRF-Token header is wrong.')
}
