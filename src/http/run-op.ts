import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../errors.ts'
import type { DispatchContext, Dispatched } from '../exec/dispatch.ts'
import { RawJson } from '../lib/raw-json.ts'
import type { OpInput, OpName, OpOutput } from '../ops/registry.ts'

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

// The envelope around data that is already JSON text: never parsed or re-serialized on the event loop.
function sendJsonData(reply: FastifyReply, status: number, json: string) {
  return reply.code(status).type('application/json; charset=utf-8').send(`{"ok":true,"data":${json}}`)
}

// A route that is just its op: the result comes back as JSON text (serialized on the worker when it ran
// on the pool) and is sent inside the envelope as is.
export async function sendOp(
  request: FastifyRequest,
  reply: FastifyReply,
  name: OpName,
  input: unknown,
  status: number,
) {
  const done = await request.server.dispatcher.runJson(name, input, context(request, name))
  serverTiming(reply, done)
  return sendJsonData(reply, status, done.value)
}

// A body the parser left as raw bytes goes to the worker whole: parsed, validated, run and serialized
// there, envelope included, and its UTF-8 bytes (moved, not copied, off the thread) are sent as they are.
export async function sendRawOp(request: FastifyRequest, reply: FastifyReply, name: OpName, body: RawJson) {
  const done = await request.server.dispatcher.runRaw(name, body.bytes, context(request, name))
  serverTiming(reply, done)
  const bytes = done.value
  return reply
    .code(200)
    .type('application/json; charset=utf-8')
    .send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
}

export { RawJson }
