import type { ServerResponse } from 'node:http'
import { constants, type Http2ServerResponse } from 'node:http2'
import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../errors.ts'

// One chunk-by-chunk transformation of a raw body (JSON format, base64): each chunk in, the output it
// completes out (in pieces of bounded size, so that a chunk that expands a lot is not held whole), and
// whatever is left at the end. Both may throw (an AppError for bad input).
export interface ChunkStep {
  write(chunk: Buffer): Iterable<Uint8Array>
  end(): Uint8Array
}

export interface TransformBodyOptions {
  // body limit in bytes, enforced on the bytes actually received
  limit: number
  // output held back before the answer is committed (Infinity: all of it)
  commitAfter: number
  // the answer to break off when an error is found after it started
  response?: ServerResponse | Http2ServerResponse
}

// Output made ahead of the client reading it: enough that reading the body and sending the answer overlap
// (a client busy uploading reads little; with 1 MiB a 15 MB minify took ~1.4x as long as with 4 MiB, as
// each side kept waiting on the other's flow control), small enough to keep memory flat.
const READ_AHEAD = 4 * 1024 * 1024

// The body is read only as fast as the output is taken (the generator runs when the answer asks for
// more), so memory stays flat whatever the size. Leaving early does not destroy the request: an error
// found before the answer started must still be answered.
async function* pieces(source: Readable, step: ChunkStep, limit: number): AsyncGenerator<Uint8Array> {
  let received = 0
  for await (const chunk of source.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    received += chunk.length
    if (received > limit) throw new AppError('ERR_PAYLOAD_TOO_LARGE', undefined, { limit_bytes: limit })
    yield* step.write(chunk)
  }
  yield step.end()
}

// An answer that has started can only be broken off, in a way no client takes for a complete answer:
// RST_STREAM with INTERNAL_ERROR on HTTP/2 (closing the stream without an error code would look like a
// normal end), the connection reset on HTTP/1.1 (no terminating chunk).
function breakOff(response: ServerResponse | Http2ServerResponse): void {
  const stream = (response as Http2ServerResponse).stream
  if (stream) stream.close(constants.NGHTTP2_INTERNAL_ERROR)
  else response.destroy()
}

async function* resumed(
  head: Uint8Array[],
  rest: AsyncGenerator<Uint8Array>,
  response: ServerResponse | Http2ServerResponse | undefined,
): AsyncGenerator<Uint8Array> {
  yield* head
  try {
    yield* rest
  } catch (err) {
    if (response) breakOff(response)
    throw err
  }
}

// Runs a request body through `step`. The status of an HTTP answer goes out with its first byte, so the
// output is held back until it passes `commitAfter` bytes: when the body ends before that, the whole
// output is returned and any error before it is thrown, to be answered with its proper status. Past it,
// a stream is returned and answered as it comes; an error found later can only abort it (Fastify destroys
// the response: the connection is reset for HTTP/1.1, the stream for HTTP/2), which a client sees as an
// incomplete answer.
export async function transformBody(
  source: NodeJS.ReadableStream,
  step: ChunkStep,
  options: TransformBodyOptions,
): Promise<Buffer | Readable> {
  const rest = pieces(source as Readable, step, options.limit)
  const head: Uint8Array[] = []
  let size = 0
  for (;;) {
    const next = await rest.next()
    if (next.done) return Buffer.concat(head, size)
    if (next.value.length === 0) continue
    head.push(next.value)
    size += next.value.length
    if (size >= options.commitAfter) {
      return Readable.from(resumed(head, rest, options.response), {
        objectMode: false,
        highWaterMark: READ_AHEAD,
      })
    }
  }
}

// A raw answer commits its 200 once this much output is ready: errors found before then are answered
// with their proper status, later ones break the answer off.
export const COMMIT_AFTER = 1024 * 1024

// A raw body answered as JSON is one string in memory (twice: the output and its envelope), so such a body
// may be at most this large whatever the plan's binary limit; streamed answers have no such cap.
export const MAX_BUFFERED_BODY = 100 * 1024 * 1024

// Content-Length, when declared (the JSON format's output cap follows it).
export function declaredLength(request: FastifyRequest): number | undefined {
  const declared = request.headers['content-length']
  return typeof declared === 'string' && /^\d+$/.test(declared) ? Number(declared) : undefined
}

// Streams the transformed body back as the raw answer (Accept: application/octet-stream).
export async function sendTransformed(
  request: FastifyRequest,
  reply: FastifyReply,
  body: NodeJS.ReadableStream,
  step: ChunkStep,
): Promise<FastifyReply> {
  const options = { limit: request.bodyLimit, commitAfter: COMMIT_AFTER, response: reply.raw }
  const output = await transformBody(body, step, options)
  return reply.type('application/octet-stream').send(output)
}

// The whole transformed body, for an answer that needs it at once (a JSON envelope).
export async function collectTransformed(
  request: FastifyRequest,
  body: NodeJS.ReadableStream,
  step: ChunkStep,
): Promise<Buffer> {
  const limit = Math.min(request.bodyLimit, MAX_BUFFERED_BODY)
  const declared = declaredLength(request)
  if (declared !== undefined && declared > limit) {
    throw new AppError('ERR_PAYLOAD_TOO_LARGE', undefined, { limit_bytes: limit })
  }
  const options = { limit, commitAfter: Number.POSITIVE_INFINITY }
  return (await transformBody(body, step, options)) as Buffer
}
