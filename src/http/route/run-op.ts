import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../errors.ts'
import type { Execution } from '../../exec/decide.ts'
import { type Answer, type DispatchContext, type Dispatched, pending } from '../../exec/dispatch.ts'
import { ANSWER_MEDIA_TYPES, answerFormat } from '../../lib/accept.ts'
import { RawJson } from '../../lib/raw-json.ts'
import { opCaps } from '../../limits/plans.ts'
import { addedFields } from '../../ops/answer.ts'
import type { AnyOp } from '../../ops/define.ts'
import { answerBytes, answerJson } from '../answer/answer.ts'
import { isReadable, sendStreamEnvelope, sendTransformed } from '../body/stream-transform.ts'

type Run = (request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply>

// Only work that crossed to a pool says where it ran and how long it queued: an inline op's timing is
// the response time itself, and a header on every small response is bytes every client has to parse.
function serverTiming(reply: FastifyReply, done: Dispatched): void {
  if (done.where === 'inline') return
  reply.header(
    'server-timing',
    `dispatch;desc="${done.where}", wait;dur=${done.waitMs.toFixed(2)}, run;dur=${done.runMs.toFixed(2)}`,
  )
}

// The request's decision (made before its body was read, src/http/lane/decide.ts) for the op it runs: a
// route runs only the op it declares, so nothing here decides anything.
function decisionFor(request: FastifyRequest, op: AnyOp): Execution {
  const execution = request.execution
  if (!request.auth || !execution || execution.op !== op) {
    throw Object.assign(new AppError('ERR_INTERNAL'), {
      cause: new Error(`route ${request.url} runs ${op.name} without a decision for it`),
    })
  }
  return execution
}

function send(request: FastifyRequest, reply: FastifyReply, status: number, answer: Answer, octets: boolean) {
  return octets
    ? answerBytes(reply.code(status), answer as Uint8Array)
    : answerJson(request, reply, status, answer)
}

// The one negotiation of the answer's media type, for an op that can answer raw bytes: neither acceptable
// is 406 before anything runs.
function wantsOctets(request: FastifyRequest): boolean {
  const format = answerFormat(request.headers.accept)
  if (format === undefined)
    throw new AppError('ERR_NOT_ACCEPTABLE', undefined, { available: [...ANSWER_MEDIA_TYPES] })
  return format === 'octets'
}

// The run step of a route that runs an op, compiled once when the route registers (src/http/route/define-route.ts):
// the answer's media type when the op has two, then where the request's decision says: a raw
// application/octet-stream body streams to a thread of the plan's pool (the op's incremental step); a JSON
// body (or its bytes, left unparsed for the worker) goes to the dispatcher, the one way an op runs
// (src/exec/dispatch.ts). Inline, the answer is there at once; from the pool it is the envelope (or the raw
// bytes) made and encoded on the thread, sent as it is, never parsed, re-serialized or re-encoded on the event
// loop (a large one leaves in pieces: answer/answer.ts).
export function compileOpRun(op: AnyOp, status: number): Run {
  const negotiates = op.octets !== undefined || op.stream !== undefined
  return function runOp(request, reply) {
    const octets = negotiates && wantsOctets(request)
    const execution = decisionFor(request, op)
    const body = request.body
    if (execution.mode === 'stream' && isReadable(body)) return runStream(request, reply, op, body, octets)
    const auth = request.auth!
    const ctx: DispatchContext = { workspaceId: auth.workspace.id, limits: auth.limits, execution }
    const added = addedFields(op, request.params, request.query, octets)
    const work =
      body instanceof RawJson ? { op, raw: body.parts, added, octets } : { op, input: body, added, octets }
    const answer = request.server.dispatcher.run(work, ctx)
    if (!pending(answer)) return send(request, reply, status, answer, octets)
    return answer.then((done) => {
      serverTiming(reply, done)
      return send(request, reply, status, done.value, octets)
    })
  }
}

// A raw body fed to the op's step on a thread of the plan's pool (src/exec/stream-run.ts): answered raw, its
// output streams back; answered as JSON, the thread answers the whole envelope.
function runStream(
  request: FastifyRequest,
  reply: FastifyReply,
  op: AnyOp,
  body: NodeJS.ReadableStream,
  octets: boolean,
): Promise<FastifyReply> {
  const stream = op.stream!
  const caps = opCaps(op, request.auth!.limits)
  const options = stream.options({
    query: request.query,
    params: request.params as Record<string, string>,
    octets,
    declaredBytes: request.execution!.declaredBytes,
    caps,
  })
  const job = { op: op.name, options, octets, caps }
  if (octets) return sendTransformed(request, reply, body, job)
  return sendStreamEnvelope(request, reply, body, job, stream.jsonBodyLimit)
}
