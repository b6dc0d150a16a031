import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '../errors.ts'
import { readLimitedCallback } from '../lib/consume-limited.ts'
import { jsonParseErrorOffset, locate } from '../lib/json-error.ts'
import { RawJson } from '../lib/raw-json.ts'
import { OPERATIONS } from '../ops/registry.ts'

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

// For a route whose op runs large bodies on the pool: refuse before reading when that pool is full, and
// hand a large body over unparsed when the op can parse it on the worker. Refused in the parser, so Fastify
// closes the connection rather than draining the body: measured under a 16-connection flood of 190 KiB
// diffs (bench/isolation.ts), draining let the flood push 3x the bytes through the event loop's TLS and
// tripled paid p99, while a reconnect costs the flooding client a handshake and slows it down.
function poolBound(request: FastifyRequest): { poolAbove: number; raw: boolean } | undefined {
  const op = request.routeConfig.op
  const auth = request.auth
  if (!op || !auth) return undefined
  const spec = OPERATIONS[op]
  const declared = Number(request.headers['content-length'] ?? 0)
  if (
    declared >= spec.poolAbove &&
    request.server.dispatcher.full({ workspaceId: auth.workspace.id, limits: auth.limits })
  ) {
    throw new AppError('ERR_OVERLOADED', undefined, undefined, { 'retry-after': '1' })
  }
  return { poolAbove: spec.poolAbove, raw: 'body' in spec && spec.body !== undefined }
}

// Callback-style (no promise per request): this runs on every JSON request.
function parseJsonBody(
  request: FastifyRequest,
  payload: NodeJS.ReadableStream,
  done: (err: Error | null, body?: unknown) => void,
): void {
  let bound: ReturnType<typeof poolBound>
  try {
    checkCharset(request.headers['content-type'])
    declaredTooLarge(request)
    bound = poolBound(request)
  } catch (err) {
    done(err as Error)
    return
  }
  readLimitedCallback(payload, request.bodyLimit, (err, bytes) => {
    if (err) return done(err)
    request.bodyBytes = bytes!.length
    if (bound?.raw && bytes!.length >= bound.poolAbove) return done(null, new RawJson(bytes!))
    const text = bytes!.toString('utf8')
    // an empty body is no body: the route's schema decides whether one was needed (action endpoints need none)
    if (text.length === 0) return done(null, undefined)
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch (parseError) {
      return done(
        new AppError('ERR_INVALID_JSON', undefined, locate(text, jsonParseErrorOffset(parseError, text))),
      )
    }
    done(null, body)
  })
}

// Binary routes read the stream themselves (hashing it as it arrives); others refuse it.
async function passOctetStream(request: FastifyRequest, payload: NodeJS.ReadableStream): Promise<unknown> {
  if (!request.routeConfig.binary) {
    throw new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'This endpoint takes application/json only.')
  }
  declaredTooLarge(request)
  return payload
}

async function bodyParsersPlugin(app: FastifyInstance, options: BodyParserOptions): Promise<void> {
  app.decorateRequest('bodyLimit', options.defaultLimit)
  app.decorateRequest('bodyBytes', 0)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', parseJsonBody)
  app.addContentTypeParser('application/octet-stream', passOctetStream)
}

export const bodyParsers = fp(bodyParsersPlugin, { name: 'anvil-body-parsers' })
