import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../errors.ts'
import { type Execution, modeFor } from '../exec/decide.ts'
import type { DispatchContext, Dispatched, RawOptions } from '../exec/dispatch.ts'
import { okEnvelope } from '../lib/envelope.ts'
import { RawJson } from '../lib/raw-json.ts'
import { type OpName, octetsOf } from '../ops/registry.ts'
import { answerBytes, answerJson } from './lane/answer.ts'

// Only work that crossed to a pool says where it ran and how long it queued: an inline op's timing is
// the response time itself, and a header on every small response is bytes every client has to parse.
function serverTiming(reply: FastifyReply, done: Dispatched<unknown>): void {
  if (done.where === 'inline') return
  reply.header(
    'server-timing',
    `dispatch;desc="${done.where}", wait;dur=${done.waitMs.toFixed(2)}, run;dur=${done.runMs.toFixed(2)}`,
  )
}

// The request's decision (made before its body was read, src/http/lane/decide.ts) for the op it runs: a
// route runs only the op it declares (`op` in defineRoute), so nothing here decides anything.
function decisionFor(request: FastifyRequest, name: OpName): Execution {
  const execution = request.execution
  if (!request.auth || !execution || execution.op !== name) {
    throw Object.assign(new AppError('ERR_INTERNAL'), {
      cause: new Error(`route ${request.url} runs ${name} without a decision for it (declare op: '${name}')`),
    })
  }
  return execution
}

function context(request: FastifyRequest, execution: Execution): DispatchContext {
  const auth = request.auth!
  return { workspaceId: auth.workspace.id, limits: auth.limits, execution }
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}

// A route's op: inline, where the request's decision says so (modeFor), then and there (no promise unless the
// op itself is asynchronous: JWT), its answer's JSON text in the envelope; on the pool, the whole envelope
// made, serialized and encoded on the thread and sent as it is, never parsed, re-serialized or re-encoded on
// the event loop (a large one leaves in pieces: lane/answer.ts).
export function sendOp(
  request: FastifyRequest,
  reply: FastifyReply,
  name: OpName,
  input: unknown,
  status: number,
): FastifyReply | Promise<FastifyReply> {
  const dispatcher = request.server.dispatcher
  const execution = decisionFor(request, name)
  if (modeFor(execution, input) === 'inline') {
    const value = dispatcher.inline(name, input as never, request.auth!.workspace.id, execution.declaredBytes)
    if (!isPromise(value)) return answerJson(request, reply, status, okEnvelope(JSON.stringify(value)))
    return value.then((v) => answerJson(request, reply, status, okEnvelope(JSON.stringify(v))))
  }
  return dispatcher.runEnvelope(name, input, context(request, execution)).then((done) => {
    serverTiming(reply, done)
    return answerJson(request, reply, status, done.value)
  })
}

// The same, answered as the op's raw bytes (Accept: application/octet-stream).
export async function sendOpBytes(
  request: FastifyRequest,
  reply: FastifyReply,
  name: OpName,
  input: unknown,
) {
  const done = await request.server.dispatcher.run(
    name,
    input as never,
    context(request, decisionFor(request, name)),
  )
  serverTiming(reply, done)
  return answerBytes(reply, octetsOf(name, done.value as never))
}

// A body the parser left as raw bytes goes to the worker whole: parsed, validated, joined by what the route
// adds, run and serialized there, envelope included (or the op's raw bytes, for Accept:
// application/octet-stream), and its bytes (moved, not copied, off the thread) are sent as they are.
export async function sendRawOp(
  request: FastifyRequest,
  reply: FastifyReply,
  name: OpName,
  body: RawJson,
  options: RawOptions = {},
) {
  const ctx = context(request, decisionFor(request, name))
  const done = await request.server.dispatcher.runRaw(name, body.parts, ctx, options)
  serverTiming(reply, done)
  if (!options.octets) return answerJson(request, reply, 200, done.value)
  return answerBytes(reply.code(200), done.value)
}

export { RawJson }
