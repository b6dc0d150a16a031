// Where a request's op runs, decided once per request from what is known before a byte of its body is read:
// the route's op, the plan, the declared Content-Length (or its absence) and the Content-Type. The body
// parser, the route (src/http/route/define-route.ts, run-op.ts) and the dispatcher (dispatch.ts) all read this
// one value (request.execution); none of them decides again. docs/dispatch.md, "One decision".
import type { PlanLimits } from '../limits/plans.ts'
import type { AnyOp } from '../ops/define.ts'
import type { Reservation } from './admission.ts'
import { type Costed, hasHeavyCase, heavyInput, inlineUpTo } from './costs.ts'

export type ExecutionMode = 'inline' | 'pool' | 'stream'

export interface ExecutionDecision<W extends Costed = AnyOp> {
  mode: ExecutionMode
  // the work decided for: the route's op (or a job's submission)
  op: W
  // inline only: the op has a heavy case (e.g. RSA signing) that its parsed input may reveal; such input
  // goes to the pool (see modeFor), everything else stays inline
  heavyCheck: boolean
  // pool only: the JSON body is handed to the worker as bytes, parsed and validated there
  rawBody: boolean
  // the declared Content-Length, or undefined for a body with none (chunked, HTTP/2 without the header)
  declaredBytes: number | undefined
}

// The decision as stored on the request, with the place on the pool held for its body (pool mode).
export interface Execution extends ExecutionDecision<AnyOp> {
  reservation: Reservation | null
}

export interface DecisionInput<W extends Costed> {
  op: W
  limits: PlanLimits
  // the body's declared size (declaredBodyBytes), undefined when it has none (chunked)
  declaredBytes: number | undefined
  contentType: string | undefined
}

// The body size a request declares before it is read: its Content-Length; 0 for an HTTP/1.x request with
// neither Content-Length nor Transfer-Encoding (it has no body); undefined otherwise (chunked, or an
// HTTP/2 stream without the header: its size is known only once read).
export function declaredBodyBytes(
  headers: { 'content-length'?: string | undefined; 'transfer-encoding'?: string | undefined },
  httpVersionMajor: number,
): number | undefined {
  const length = headers['content-length']
  if (length !== undefined) return /^\d+$/.test(length) ? Number(length) : undefined
  if (httpVersionMajor === 1 && headers['transfer-encoding'] === undefined) return 0
  return undefined
}

// A pure function: the same request facts always give the same decision.
// - A raw application/octet-stream body streams (to the pool: h-stream's path).
// - Inline only when the declared size is within the op's inline bound, the worst case at that size being
//   small (src/exec/costs.ts, inlineUpTo; for ops whose schema bounds their work, the worst case is
//   parsing the body). A body with no declared length is never inline: its size is unbounded until read.
export function decideExecution<W extends Costed>({
  op,
  limits,
  declaredBytes,
  contentType,
}: DecisionInput<W>): ExecutionDecision<W> {
  // one object per request, built whole (every request makes one: no spread of a shared base)
  const octets = contentType?.toLowerCase().startsWith('application/octet-stream') === true
  if (octets) return { mode: 'stream', op, heavyCheck: false, rawBody: false, declaredBytes }
  const bound = inlineUpTo(op, limits)
  if (declaredBytes !== undefined && declaredBytes < bound) {
    return { mode: 'inline', op, heavyCheck: hasHeavyCase(op), rawBody: false, declaredBytes }
  }
  // every op's body has its schema: a large one is parsed and validated on the worker
  return { mode: 'pool', op, heavyCheck: false, rawBody: true, declaredBytes }
}

// The mode for this input: the decision's, except that an inline decision whose op has a heavy case goes to
// the pool when the parsed input is that case. The only place input moves work, and only ever to the pool.
export function modeFor(decision: ExecutionDecision<Costed>, input: unknown): ExecutionMode {
  if (decision.mode === 'inline' && decision.heavyCheck && heavyInput(decision.op, input)) return 'pool'
  return decision.mode
}
