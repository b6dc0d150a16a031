import type { z } from 'zod'
import type { ErrorCode } from '../../errors.ts'
import type { Security } from '../hooks/access.ts'
import type { HeaderName } from './headers.ts'

// What a route declares about itself for clients: the OpenAPI operation it becomes (collector.ts,
// document.ts) and the access rule it is held to.
export interface RouteDoc {
  operationId: string
  summary: string
  // what a client needs to know beyond the summary (limits, edge cases, what the answer means): the
  // operation's description in the OpenAPI document, never the summary again
  description: string
  tags: string[]
  response: z.ZodType
  status?: 200 | 201 | 202
  errors?: ErrorCode[]
  // answers raw bytes (application/octet-stream) or the JSON envelope, as the request's Accept prefers
  // (src/lib/accept.ts); neither acceptable → 406 ERR_NOT_ACCEPTABLE before the handler runs
  binaryResponse?: boolean
  // response headers only this route's success answer carries, each with when it is sent (the ones every
  // answer of its kind carries are src/http/openapi/headers.ts's)
  headers?: Partial<Record<HeaderName, string>>
  // honours an Idempotency-Key header (src/http/hooks/idempotency.ts): set on every POST that creates
  idempotent?: boolean
  // the route's one access rule, mandatory and enforced after routing (src/http/hooks/access.ts); apiKey
  // routes also declare their family. sessionCookie: the console's signed-in session (src/http/console/),
  // with its X-CSRF-Token on writes
  security: Security
}
