import type { FastifyReply, FastifyRequest } from 'fastify'
import { decideExecution, declaredBodyBytes, type Execution } from '../../exec/decide.ts'
import { failureError } from '../../exec/pool-failure.ts'
import type { AnyOp } from '../../ops/define.ts'

type Done = (err?: Error) => void

// The lane's decide step, for a route that runs an op, after the access rule (so the plan is known) and before
// a byte of the body is read: the request's one execution decision (src/exec/decide.ts), stored on it for the
// parser, the route and the dispatcher. A JSON body bound for the pool then gets a place on it
// (src/exec/admission.ts), at once or after waiting its turn with the body unread; refused with 503 when none
// came free within the wait. The refusal closes the connection rather than letting Node drain the body:
// measured under a 16-connection flood of 190 KiB diffs (bench/isolation.ts), draining let the flood push 3x
// the bytes through the event loop's TLS and tripled paid p99.
export function decideAndAdmit(
  request: FastifyRequest,
  reply: FastifyReply,
  op: AnyOp,
  waitMs: number,
  done: Done,
): void {
  const auth = request.auth
  if (!auth) {
    done()
    return
  }
  const headers = request.headers
  const contentType = headers['content-type']
  const decision = decideExecution({
    op,
    limits: auth.limits,
    declaredBytes: declaredBodyBytes(headers, request.raw.httpVersionMajor),
    contentType,
  })
  // the decision is the request's: its place on the pool, if it takes one, is kept beside it
  const execution = decision as Execution
  execution.reservation = null
  request.execution = execution
  // one over the plan's limit is the parser's to refuse (413) at once; other media types its to refuse (415)
  const over = decision.declaredBytes !== undefined && decision.declaredBytes > request.bodyLimit
  if (decision.mode !== 'pool' || contentType?.startsWith('application/json') !== true || over) {
    done()
    return
  }
  const ctx = { workspaceId: auth.workspace.id, limits: auth.limits }
  const dispatcher = request.server.dispatcher
  const { reservation, admitted } = dispatcher.reserve(ctx, waitMs, op)
  // however the request ends, a place it never used (or its turn in the line) goes to the next one
  reply.raw.once('close', () => dispatcher.cancel(ctx, reservation))
  // an HTTP/2 body past its deadline gives its place (or its turn) back at once, and is answered 408
  const deadline = request.bodyDeadline
  deadline?.addEventListener('abort', () => dispatcher.cancel(ctx, reservation), { once: true })
  execution.reservation = reservation
  admitted.then((ok) => {
    if (ok) return done()
    if (deadline?.aborted) return done(deadline.reason as Error)
    // (HTTP/2 has no such header: Node ends a stream whose body was never read with RST_STREAM itself)
    if (request.raw.httpVersionMajor === 1) reply.header('connection', 'close')
    done(failureError({ kind: 'overloaded' }, { subject: 'The operation' }))
  }, done)
}
