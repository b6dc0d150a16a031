import type { FastifyReply, FastifyRequest } from 'fastify'
import type { StreamJob } from '../../../workers/stream-protocol.ts'
import { openStream, streamTiming } from './stream-transform.ts'

// Hashes a request body chunk by chunk on a thread of the plan's pool (src/exec/stream-run.ts): memory
// stays flat whatever the size, the event loop only moves bytes, and the body limit is enforced on the
// bytes actually received. Resolves to the digest and the number of bytes hashed.
export async function digestOnPool(
  request: FastifyRequest,
  reply: FastifyReply,
  body: NodeJS.ReadableStream,
  job: Extract<StreamJob, { kind: 'hash' }>,
): Promise<{ digest: Buffer; bytes: number }> {
  const handle = await openStream(request, reply, body, job, request.bodyLimit)
  let next = await handle.output.next()
  while (!next.done) next = await handle.output.next()
  streamTiming(reply, handle)
  const digest = next.value.digest!
  return { digest: Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength), bytes: next.value.bytes }
}

export function isReadable(value: unknown): value is NodeJS.ReadableStream {
  return (
    typeof value === 'object' && value !== null && typeof (value as { pipe?: unknown }).pipe === 'function'
  )
}

// The body to stream to the pool, when the request's one execution decision (src/exec/decide.ts) is to
// stream it: an application/octet-stream body on a binary route, which the body parser passes on unread.
export function streamedBody(request: FastifyRequest, body: unknown): NodeJS.ReadableStream | undefined {
  if (request.execution?.mode !== 'stream') return undefined
  return isReadable(body) ? body : undefined
}
