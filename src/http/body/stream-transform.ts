import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { StreamJob } from '../../../workers/stream-protocol.ts'
import { AppError } from '../../errors.ts'
import type { StreamHandle } from '../../exec/stream-run.ts'
import { answerJson } from '../answer/answer.ts'
import { cutAnswer } from '../answer/cut.ts'

export interface TransformBodyOptions {
  // output held back before the answer is committed (Infinity: all of it)
  commitAfter: number
  // the answer to break off when an error is found after it started
  answer?: { request: FastifyRequest; reply: FastifyReply }
}

// Output made ahead of the client reading it: enough that reading the body and sending the answer overlap
// (a client busy uploading reads little; with 1 MiB a 15 MB minify took ~1.4x as long as with 4 MiB, as
// each side kept waiting on the other's flow control), small enough to keep memory flat.
const READ_AHEAD = 4 * 1024 * 1024

// An answer that has started can only be broken off, and is recorded, logged and settled once as a cut
// answer (src/http/answer/cut.ts), unless the client had gone first (its abort is what failed the output).
function breakOff(answer: { request: FastifyRequest; reply: FastifyReply }, err: unknown): void {
  if (!answer.reply.raw.destroyed) cutAnswer(answer.request, answer.reply, err)
}

async function* resumed(
  head: Uint8Array[],
  rest: AsyncGenerator<Uint8Array, unknown>,
  answer: TransformBodyOptions['answer'],
): AsyncGenerator<Uint8Array> {
  yield* head
  try {
    yield* rest
  } catch (err) {
    if (answer) breakOff(answer, err)
    throw err
  }
}

// Answers the output of a streamed op (src/exec/stream-run.ts: the body goes chunk by chunk to a thread
// of the plan's pool, which sends the output back only as fast as it is taken). The status of an HTTP
// answer goes out with its first byte, so the output is held back until it passes `commitAfter` bytes:
// when the op ends before that, the whole output is returned and any error before it is thrown, to be
// answered with its proper status. Past it, a stream is returned and answered as it comes; an error found
// later can only abort it (Fastify destroys the response: the connection is reset for HTTP/1.1, the
// stream for HTTP/2), which a client sees as an incomplete answer.
export async function transformBody(
  rest: AsyncGenerator<Uint8Array, unknown>,
  options: TransformBodyOptions,
): Promise<Buffer | Readable> {
  const head: Uint8Array[] = []
  let size = 0
  for (;;) {
    const next = await rest.next()
    if (next.done) return Buffer.concat(head, size)
    if (next.value.length === 0) continue
    head.push(next.value)
    size += next.value.length
    if (size >= options.commitAfter) {
      return Readable.from(resumed(head, rest, options.answer), {
        objectMode: false,
        highWaterMark: READ_AHEAD,
      })
    }
  }
}

// A raw answer commits its 200 once this much output is ready: errors found before then are answered
// with their proper status, later ones break the answer off.
export const COMMIT_AFTER = 1024 * 1024

// Opens the request's stream task on its plan's pool: the client gone (the response closed) ends it.
export async function openStream(
  request: FastifyRequest,
  reply: FastifyReply,
  body: NodeJS.ReadableStream,
  job: StreamJob,
  limit: number,
): Promise<StreamHandle> {
  const auth = request.auth
  if (!auth) throw new AppError('ERR_INTERNAL')
  const gone = new AbortController()
  reply.raw.once('close', () => gone.abort())
  try {
    return await request.server.streams.open(job, body, {
      workspaceId: auth.workspace.id,
      limits: auth.limits,
      limit,
      signal: gone.signal,
    })
  } catch (err) {
    // refused with its body unread: close the connection rather than let Node drain it (as admission
    // does for JSON bodies, src/http/body/parsers.ts)
    if ((err as AppError).code === 'ERR_OVERLOADED' && request.raw.httpVersionMajor === 1) {
      reply.header('connection', 'close')
    }
    throw err
  }
}

// Only work that crossed to a pool says where it ran (as src/http/route/run-op.ts does): known once it is done.
export function streamTiming(reply: FastifyReply, handle: StreamHandle): void {
  const t = handle.timing()
  reply.header(
    'server-timing',
    `dispatch;desc="${t.where}", wait;dur=${t.waitMs.toFixed(2)}, run;dur=${t.runMs.toFixed(2)}`,
  )
}

// Streams the transformed body back as the raw answer (Accept: application/octet-stream).
export async function sendTransformed(
  request: FastifyRequest,
  reply: FastifyReply,
  body: NodeJS.ReadableStream,
  job: StreamJob,
): Promise<FastifyReply> {
  const handle = await openStream(request, reply, body, job, request.bodyLimit)
  const output = await transformBody(handle.output, { commitAfter: COMMIT_AFTER, answer: { request, reply } })
  if (Buffer.isBuffer(output)) streamTiming(reply, handle)
  return reply.type('application/octet-stream').send(output)
}

// The JSON answer of a streamed body: the thread answers the whole success envelope as one piece of UTF-8
// bytes (workers/stream.ts), sent as it is (a large one leaves in slices: answer/answer.ts). Nothing of the
// output is concatenated, decoded, escaped or encoded on the event loop. An op whose thread holds its whole
// output for that answer takes a body of at most `heldLimit` (OpStream.jsonBodyLimit, src/ops/define.ts).
export async function sendStreamEnvelope(
  request: FastifyRequest,
  reply: FastifyReply,
  body: NodeJS.ReadableStream,
  job: StreamJob,
  heldLimit = Number.POSITIVE_INFINITY,
): Promise<FastifyReply> {
  const limit = Math.min(request.bodyLimit, heldLimit)
  const declared = request.execution?.declaredBytes
  if (declared !== undefined && declared > limit) {
    throw new AppError('ERR_PAYLOAD_TOO_LARGE', undefined, { limit_bytes: limit })
  }
  const handle = await openStream(request, reply, body, job, limit)
  const pieces: Uint8Array[] = []
  let next = await handle.output.next()
  while (!next.done) {
    pieces.push(next.value)
    next = await handle.output.next()
  }
  streamTiming(reply, handle)
  const envelope = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces)
  return answerJson(request, reply, reply.statusCode, envelope)
}

export function isReadable(value: unknown): value is NodeJS.ReadableStream {
  return (
    typeof value === 'object' && value !== null && typeof (value as { pipe?: unknown }).pipe === 'function'
  )
}
