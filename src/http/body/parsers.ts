import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '../../errors.ts'
import { jsonParseErrorOffset, locate } from '../../lib/json-error.ts'
import { RawJson } from '../../lib/raw-json.ts'
import { parseOpBody } from '../../ops/answer.ts'
import { bodyUnderDeadline } from './body-deadline.ts'
import { consumeLimitedCallback, readLimitedCallback } from './consume-limited.ts'

export interface BodyParserOptions {
  // limit for requests that carry no plan (admin API, console)
  defaultLimit: number
}

function tooLarge(limit: number): AppError {
  return new AppError('ERR_PAYLOAD_TOO_LARGE', undefined, { limit_bytes: limit })
}

export function checkCharset(contentType: string | undefined): void {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')
  if (m && !/^utf-?8$/i.test(m[1]!)) {
    throw new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'JSON bodies must be UTF-8.', { charset: m[1] })
  }
}

// The declared length is checked before a byte is read, and the running total while streaming,
// so an oversized body is refused without being buffered.
export function declaredTooLarge(request: FastifyRequest): void {
  const declared = request.headers['content-length']
  if (declared !== undefined && Number(declared) > request.bodyLimit) throw tooLarge(request.bodyLimit)
}

function truncated(request: FastifyRequest): Error {
  const raw = request.raw as { aborted?: boolean; stream?: { rstCode?: number } }
  if (raw.aborted === true || raw.stream?.rstCode !== undefined) {
    return Object.assign(new Error('aborted'), { code: 'ECONNRESET' })
  }
  return new AppError('ERR_BAD_REQUEST', 'Content-Length does not match the body.')
}

// parse: the lane's step after the access rule and the decision (src/http/lane/lane.ts). Callback-style (no
// promise per request): this runs on every JSON request.
function parseJsonBody(
  request: FastifyRequest,
  payload: NodeJS.ReadableStream,
  done: (err: Error | null, body?: unknown) => void,
): void {
  let body: NodeJS.ReadableStream
  try {
    checkCharset(request.headers['content-type'])
    declaredTooLarge(request)
    body = bodyUnderDeadline(request, payload)
  } catch (err) {
    done(err as Error)
    return
  }
  readJson(request, body, done)
}

function readJson(
  request: FastifyRequest,
  payload: NodeJS.ReadableStream,
  done: (err: Error | null, body?: unknown) => void,
): void {
  const execution = request.execution
  // a chunked body the worker parses: kept in the pieces it came in, joined on the thread
  if (execution?.rawBody && execution.declaredBytes === undefined) {
    readRawParts(request, payload, done)
    return
  }
  readLimitedCallback(
    payload,
    request.bodyLimit,
    (err, bytes) => {
      if (err) return done(err)
      // Node ends an HTTP/2 body when the client resets the stream rather than failing it, and does not
      // hold it to its Content-Length: a short body is an abort (or a lying client), never a whole request
      const declared = request.headers['content-length']
      if (declared !== undefined && Number(declared) !== bytes!.length) return done(truncated(request))
      // the decision says the worker parses it: handed over as bytes (an empty body is no body, below)
      if (execution?.rawBody && bytes!.length > 0) return done(null, new RawJson(bytes!))
      const text = bytes!.toString('utf8')
      // an empty body is no body: the route's schema decides whether one was needed (action endpoints need none)
      if (text.length === 0) return done(null, undefined)
      let body: unknown
      try {
        // json/diff and json/patch keep every number exactly as written (src/ops/json/number.ts)
        const op = request.routeConfig.op
        body = parseOpBody(op, text)
      } catch (parseError) {
        return done(
          new AppError('ERR_INVALID_JSON', undefined, locate(text, jsonParseErrorOffset(parseError, text))),
        )
      }
      done(null, body)
    },
    // only a body the worker parses needs an ArrayBuffer of its own (to move to the thread); an inline one is
    // read into whatever the socket gave (one chunk, for a small body)
    execution?.rawBody ? execution.declaredBytes : undefined,
  )
}

function readRawParts(
  request: FastifyRequest,
  payload: NodeJS.ReadableStream,
  done: (err: Error | null, body?: unknown) => void,
): void {
  const parts: Buffer[] = []
  consumeLimitedCallback(
    payload,
    request.bodyLimit,
    (chunk) => parts.push(chunk),
    (err, size) => {
      if (err) return done(err)
      // an empty body is no body, as above
      done(null, size! > 0 ? new RawJson(parts) : undefined)
    },
  )
}

// Binary routes read the stream themselves (hashing it as it arrives); others refuse it.
async function passOctetStream(request: FastifyRequest, payload: NodeJS.ReadableStream): Promise<unknown> {
  if (!request.routeConfig.binary) {
    throw new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'This endpoint takes application/json only.')
  }
  declaredTooLarge(request)
  return bodyUnderDeadline(request, payload)
}

async function bodyParsersPlugin(app: FastifyInstance, options: BodyParserOptions): Promise<void> {
  app.decorateRequest('bodyLimit', options.defaultLimit)
  app.decorateRequest('execution', null)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', parseJsonBody)
  app.addContentTypeParser('application/octet-stream', passOctetStream)
}

export const bodyParsers = fp(bodyParsersPlugin, { name: 'anvil-body-parsers' })
