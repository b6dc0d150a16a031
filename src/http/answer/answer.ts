import type { FastifyReply, FastifyRequest } from 'fastify'
import { COMPRESS_THRESHOLD, compressJson } from './compression.ts'
import { SLICE_ABOVE, sliced } from './large-answers.ts'

const JSON_TYPE = 'application/json; charset=utf-8'

// answer: the lane's step after run. Every answer a route makes (its envelope, its raw bytes, an error, an idempotent
// replay) leaves through here. A JSON answer of at least COMPRESS_THRESHOLD bytes is compressed off the event
// loop for a client that accepts it (src/http/answer/compression.ts); bytes over SLICE_ABOVE not compressed leave in
// slices (src/http/answer/large-answers.ts). Decided here rather than in onSend hooks, so a small answer pays one
// length check and no hook (docs/architecture.md, "A request's path").
export function answerJson(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  body: string | Uint8Array,
): FastifyReply {
  reply.code(status)
  reply.header('content-type', JSON_TYPE)
  const size = typeof body === 'string' ? body.length : body.byteLength
  const payload = typeof body === 'string' ? body : asBuffer(body)
  // a string's length in UTF-16 units is at most its UTF-8 length: a short one is never measured. An
  // idempotent route keeps its answer as it is, then shapes it (its onSend hooks: src/http/hooks/idempotency.ts)
  const config = request.routeConfig
  if (size < COMPRESS_THRESHOLD || config?.idempotent === true || config?.lane?.shape !== true)
    return reply.send(payload)
  return reply.send(sliced(reply, compressJson(request, reply, payload)))
}

// The same decision as an onSend hook, for a route whose answer must be seen whole before it is shaped (an
// idempotent route keeps it first).
export function shapeAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: Error | null, payload?: unknown) => void,
): void {
  const shape = request.routeConfig?.lane?.shape === true
  done(null, shape ? sliced(reply, compressJson(request, reply, payload)) : payload)
}

// Raw bytes (Accept: application/octet-stream, or a file of the docs page whose type is already set): never
// compressed; a large answer leaves in slices.
export function answerBytes(
  reply: FastifyReply,
  bytes: Uint8Array,
  type: string | null = 'application/octet-stream',
) {
  if (type !== null) reply.header('content-type', type)
  const payload = asBuffer(bytes)
  const shape = reply.request.routeConfig?.lane?.shape === true
  return reply.send(shape && payload.byteLength > SLICE_ABOVE ? sliced(reply, payload) : payload)
}

// A Buffer view of bytes (no copy), for reply.send.
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
