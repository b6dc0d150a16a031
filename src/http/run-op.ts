import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../errors.ts'
import type { Dispatched } from '../exec/dispatch.ts'
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

function context(request: FastifyRequest) {
  const auth = request.auth
  if (!auth) throw new AppError('ERR_INTERNAL')
  const bytes = request.bodyBytes || Number(request.headers['content-length'] ?? 0)
  return {
    workspaceId: auth.workspace.id,
    limits: auth.limits,
    bytes,
    ...(request.poolReservation ? { reservation: request.poolReservation } : {}),
  }
}

// Runs an operation for a request, inline or on the plan's pool, and says where in Server-Timing.
export async function runOp<N extends OpName>(
  request: FastifyRequest,
  reply: FastifyReply,
  name: N,
  input: OpInput<N>,
): Promise<OpOutput<N>> {
  const done = await request.server.dispatcher.run(name, input, context(request))
  serverTiming(reply, done)
  return done.value
}

// A body the parser left as raw bytes goes to the worker whole: parsed, validated, run and serialized
// there, and the envelope is assembled around the worker's JSON text without touching it.
export async function sendRawOp(request: FastifyRequest, reply: FastifyReply, name: OpName, body: RawJson) {
  const done = await request.server.dispatcher.runRaw(name, body.bytes, context(request))
  serverTiming(reply, done)
  return reply.type('application/json; charset=utf-8').send(`{"ok":true,"data":${done.value}}`)
}

export { RawJson }
