import { constants, type Http2ServerRequest, type ServerHttp2Stream } from 'node:http2'
import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../errors.ts'

function ignore(): void {}

// The request body as its readers see it: the stream's bytes, read only when asked for (so a body waiting
// for a pool place stays unread, under flow control), failing with the deadline's 408 when it passes.
// Destroying it leaves the HTTP/2 stream open, so the 408 can still be answered on it.
class DeadlineBody extends Readable {
  #source: Readable
  #started = false

  constructor(source: Readable, deadline: AbortSignal) {
    super()
    this.#source = source
    // readers listen for errors while they read; one that stopped (a 413 leaves the rest unread) must not
    // turn the deadline's error into an uncaught exception
    this.on('error', ignore)
    deadline.addEventListener('abort', () => this.destroy(deadline.reason as Error), { once: true })
  }

  override _read(): void {
    if (this.#started) {
      this.#source.resume()
      return
    }
    this.#started = true
    const source = this.#source
    source.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) source.pause()
    })
    source.once('end', () => this.push(null))
    source.once('error', (err) => this.destroy(err))
    // the client reset the stream: nothing more will come, and nobody is left to answer. Readers are told
    // as they are for an HTTP/1.1 hang-up (ECONNRESET), so the request is logged as a client abort
    source.once('close', () => {
      if (!source.readableEnded) this.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }))
    })
  }
}

// Node's requestTimeout covers HTTP/1.1 only: over HTTP/2 a body trickling a byte every 20 s would hold
// its stream, its parser and its pool place forever. Each HTTP/2 request with a body gets the same
// deadline, counted from its headers: past it, `request.bodyDeadline` aborts with ERR_REQUEST_TIMEOUT,
// which fails whoever reads the body (the JSON parser, a streaming handler: 408 with the envelope, or a
// started streamed answer broken off), gives back a pool place held or waited for (src/http/lane/decide.ts),
// and, once the answer is out, ends the stream with RST_STREAM(NO_ERROR) (RFC 9113 §8.1: a complete answer
// sent before the whole request) so the client stops sending and the stream's memory is freed. Called by the
// lane's first step (src/http/lane/lane.ts) for every request; an HTTP/1.1 request costs one property read.
export function startBodyDeadline(request: FastifyRequest, reply: FastifyReply, timeoutMs: number): void {
  const stream = (request.raw as unknown as Partial<Http2ServerRequest>).stream as
    | ServerHttp2Stream
    | undefined
  if (!stream || stream.endAfterHeaders) return
  const controller = new AbortController()
  request.bodyDeadline = controller.signal
  const timer = setTimeout(function bodyDeadlinePassed() {
    // the whole body has arrived (END_STREAM), read or not: the deadline is met
    if (stream.destroyed || stream.closed || stream.state.remoteClose) return
    controller.abort(new AppError('ERR_REQUEST_TIMEOUT'))
    const stop = () => {
      if (!stream.destroyed) stream.close(constants.NGHTTP2_NO_ERROR)
    }
    // (the compat response's own 'finish' only comes once the stream has closed)
    if (stream.writableFinished) stop()
    else stream.once('finish', stop)
  }, timeoutMs)
  const clear = () => clearTimeout(timer)
  request.raw.once('end', clear)
  reply.raw.once('close', clear)
}

// The body as the parsers read it: the raw stream, or for an HTTP/2 request with a deadline, the stream
// bound to it (failing with the 408 once it passes).
export function bodyUnderDeadline(
  request: FastifyRequest,
  payload: NodeJS.ReadableStream,
): NodeJS.ReadableStream {
  const deadline = request.bodyDeadline
  if (!deadline) return payload
  if (deadline.aborted) throw deadline.reason as Error
  return new DeadlineBody(payload as Readable, deadline)
}
