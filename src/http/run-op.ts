import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../errors.ts'
import type { DispatchContext, Dispatched, RawOptions } from '../exec/dispatch.ts'
import { RawJson } from '../lib/raw-json.ts'
import type { OpInput, OpName, OpOutput } from '../ops/registry.ts'
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

// The request's decision (made before its body was read, src/http/body/parsers.ts) for the op it runs: a
// route runs only the op it declares (`op` in defineRoute), so nothing here decides anything.
function context(request: FastifyRequest, name: OpName): DispatchContext {
  const auth = request.auth
  const execution = request.execution
  if (!auth || !execution || execution.op !== name) {
    throw Object.assign(new AppError('ERR_INTERNAL'), {
      cause: new Error(`route ${request.url} runs ${name} without a decision for it (declare op: '${name}')`),
    })
  }
  return { workspaceId: auth.workspace.id, limits: auth.limits, execution }
}

// Runs an operation for a request, inline or on the plan's pool, and says where in Server-Timing.
export async function runOp<N extends OpName>(
  request: FastifyRequest,
  reply: FastifyReply,
  name: N,
  input: OpInput<N>,
): Promise<OpOutput<N>> {
  const done = await request.server.dispatcher.run(name, input, context(request, name))
  serverTiming(reply, done)
  return done.value
}

// A route that is just its op: the answer comes back as the whole envelope (serialized and encoded on
// the worker when it ran on the pool) and is sent as it is.
export async function sendOp(
  request: FastifyRequest,
  reply: FastifyReply,
  name: OpName,
  input: unknown,
  status: number,
) {
  const done = await request.server.dispatcher.runEnvelope(name, input, context(request, name))
  serverTiming(reply, done)
  // made on the pool thread as bytes when it ran there: sent as it is, never parsed, re-serialized or
  // re-encoded on the event loop (a large one leaves in pieces: lane/answer.ts)
  return answerJson(request, reply, status, done.value)
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
  const done = await request.server.dispatcher.runRaw(name, body.parts, context(request, name), options)
  serverTiming(reply, done)
  if (!options.octets) return answerJson(request, reply, 200, done.value)
  return answerBytes(reply.code(200), done.value)
}

export { RawJson }
