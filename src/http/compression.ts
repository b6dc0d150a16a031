import { constants } from 'node:zlib'
import compress from '@fastify/compress'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

// JSON answers of at least this many bytes are compressed (br, else gzip) for clients that accept it.
// Measured (docs/decisions.md, "Compression"; `npm run bench -- compression`): an answer below it fits
// one TCP segment (1460 B less TLS framing) either way, so compressing saves no round trip, while the
// threadpool hop adds 0.1–2 ms of latency; above it JSON shrinks 4–8x and segments are saved.
export const COMPRESS_THRESHOLD = 1400

// JSON only (application/json, application/problem+json, ...): never octet-stream bodies, never
// Server-Sent Events (each event must reach the client when written), never the HTML and scripts of
// /docs and /console (served as files, small or already minified).
const JSON_TYPES = /^application\/(?:[\w.-]+\+)?json(?:;|$)/

// Compression runs only on zlib's stream API, which does the work on libuv's threadpool: the
// synchronous path @fastify/compress offers for small bodies (syncThreshold) is turned off, so no
// compression ever runs on the event loop. Brotli at quality 4 (the default 11 costs ~30x the CPU for
// a few percent). Request bodies are never decompressed: a gzip body would bypass the size limits.
export const compression = fp(
  async function compressionPlugin(app: FastifyInstance) {
    // @fastify/compress tests every answer against the globals Response and ReadableStream, which Node
    // loads (undici, the web streams) on first use: 40 ms of the event loop on this machine, on the first
    // request a gateway answered. Loaded here, at boot, instead.
    void [globalThis.Response, globalThis.ReadableStream]
    await app.register(compress, {
      global: true,
      globalDecompression: false,
      encodings: ['br', 'gzip'],
      threshold: COMPRESS_THRESHOLD,
      syncThreshold: 0,
      customTypes: JSON_TYPES,
      brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
      zlibOptions: { level: 6 },
    })
  },
  { name: 'anvil-compression' },
)
