import { pipeline, type Readable } from 'node:stream'
import { constants, createBrotliCompress, createGzip } from 'node:zlib'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { HEADER_BOUNDS, withinBound } from '../../lib/header-bounds.ts'

// JSON answers of at least this many bytes are compressed (br, else gzip) for clients that accept it.
// Measured (docs/decisions.md, "Compression"; `npm run bench -- compression`): an answer below it fits
// one TCP segment (1460 B less TLS framing) either way, so compressing saves no round trip, while the
// threadpool hop adds 0.1–2 ms of latency; above it JSON shrinks 4–8x and segments are saved.
export const COMPRESS_THRESHOLD = 1400

// JSON only (application/json, application/problem+json, ...): never octet-stream bodies, never
// Server-Sent Events (each event must reach the client when written), never the HTML and scripts of
// /docs and /console (served as files, small or already minified).
const JSON_TYPES = /^application\/(?:[\w.-]+\+)?json(?:;|$)/

type Coding = 'br' | 'gzip' | 'identity'

// br, then gzip, then identity, as far as the client accepts them (a coding with q=0 is refused). A header
// over its bound (256 bytes, 16 codings; a 64 KiB one took 6-43 ms to split) is read as an empty one, which
// asks for no coding (RFC 9110 §12.5.3): identity, unparsed.
export function negotiate(header: string | string[] | undefined): Coding {
  if (typeof header === 'string' && !withinBound(header, HEADER_BOUNDS['accept-encoding'])) return 'identity'
  const accepted = new Map<string, number>()
  for (const part of String(header ?? '').split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';')
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
    if (name) accepted.set(name, q === undefined ? 1 : Number(q))
  }
  const wants = (c: string) => (accepted.get(c) ?? accepted.get('*') ?? 0) > 0
  if (wants('br')) return 'br'
  if (wants('gzip')) return 'gzip'
  return 'identity'
}

function isStream(payload: unknown): payload is Readable {
  return typeof (payload as { pipe?: unknown } | null)?.pipe === 'function'
}

// The bytes an answer will have, when cheap to know: a string's length in UTF-16 units is at most its
// UTF-8 length, so a short string is never measured (a string of non-ASCII text just over the threshold
// may go uncompressed, which costs nothing but a few bytes).
function smallAnswer(payload: unknown): boolean {
  if (typeof payload === 'string') return payload.length < COMPRESS_THRESHOLD
  if (payload instanceof Uint8Array) return payload.byteLength < COMPRESS_THRESHOLD
  return !isStream(payload)
}

function addVary(reply: FastifyReply): void {
  const vary = reply.getHeader('vary')
  if (vary === undefined) reply.header('vary', 'Accept-Encoding')
  else if (!/accept-encoding/i.test(String(vary))) reply.header('vary', `${String(vary)}, Accept-Encoding`)
}

// Compression runs only on zlib's stream API, which does the work on libuv's threadpool: nothing of it
// runs on the event loop, whatever the size (the answer, or each of its slices, is handed to zlib as it
// is). Brotli at quality 4 (the default 11 costs ~30x the CPU for a few percent). Request bodies are never
// decompressed: a gzip body would bypass the size limits.
//
// Our own onSend hook rather than @fastify/compress: that plugin added an onRequest and an onSend hook to
// every route, tested every answer against the global Response (which loads undici, 40 ms of the event
// loop on first use), and loaded mime-db and readable-stream at boot, for a decision this API makes from
// two facts (JSON, and its size).
export function compressJson(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (
    smallAnswer(payload) ||
    reply.hasHeader('content-encoding') ||
    !JSON_TYPES.test(String(reply.getHeader('content-type') ?? ''))
  ) {
    return payload
  }
  addVary(reply)
  const coding = negotiate(request.headers['accept-encoding'])
  if (coding === 'identity') return payload
  const zip =
    coding === 'br'
      ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 4 } })
      : createGzip({ level: 6 })
  reply.header('content-encoding', coding)
  reply.removeHeader('content-length')
  // a source that fails (an answer broken off mid-way) fails the compressed stream, and so the answer
  if (isStream(payload)) pipeline(payload, zip, () => {})
  else zip.end(payload)
  return zip
}
