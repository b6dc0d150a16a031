import type { ServerResponse } from 'node:http'
import { constants, type Http2ServerResponse } from 'node:http2'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ERRORS } from '../../errors.ts'
import { toAppError } from './error-mapping.ts'

// An answer that fails after it has started (a streamed op that finds invalid JSON past its first MiB, a
// pool thread lost mid-stream) can only be broken off (breakOff): the client has its 200 and part of the
// body. That is neither a success nor a 5xx of the gateway's: it is recorded once as what it is
// (src/http/hooks/record.ts: anvil_http_answers_cut_total, by the code the failure would have had), logged
// once, and settled by that code (a cut the gateway caused is refunded, once; one the input caused is
// charged, as its 4xx would have been). Fastify runs no onResponse for a response that never finished, so
// the lane's record and settle steps run from here; and the reply is taken out of Fastify's hands, so that
// nothing tries to answer again (issue 36: a route's late answer then failed with ERR_HTTP_HEADERS_SENT,
// logged and counted as a 500). A client that went away first is not a cut: the caller checks that (its
// response already closed).
export function cutAnswer(request: FastifyRequest, reply: FastifyReply, err: unknown): void {
  if (request.answerCut !== null) return
  const code = toAppError(err as Error, request.bodyLimit).code
  const status = ERRORS[code].status
  request.answerCut = { code, status }
  reply.hijack()
  const message = 'answer cut off after it started: the client got part of it'
  if (status >= 500) request.log.error({ err, code }, message)
  else request.log.info({ code }, message)
  breakOff(reply.raw as ServerResponse | Http2ServerResponse)
  request.routeConfig?.lane?.leave(request, reply, () => {})
}

// In a way no client takes for a complete answer: RST_STREAM with INTERNAL_ERROR on HTTP/2 (closing the
// stream without an error code would look like a normal end), the connection reset on HTTP/1.1 (no
// terminating chunk).
function breakOff(response: ServerResponse | Http2ServerResponse): void {
  const stream = (response as Http2ServerResponse).stream
  if (stream) stream.close(constants.NGHTTP2_INTERNAL_ERROR)
  else response.destroy()
}
