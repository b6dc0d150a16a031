import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { answerBytes } from '../answer/answer.ts'
import { negotiate } from '../answer/compression.ts'

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

interface Encoded {
  identity: Buffer
  br: Buffer
  gzip: Buffer
}

// A document built once, on first request, and kept in each coding: compressed once on libuv's
// threadpool (zlib's async API), never per request and never on the event loop.
export function cachedDocument(build: () => Record<string, unknown>) {
  let encoded: Promise<Encoded> | undefined
  async function encode(): Promise<Encoded> {
    const identity = Buffer.from(JSON.stringify(build()))
    const [br, gz] = await Promise.all([
      brotli(identity, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 11,
          [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
        },
      }),
      gzipAsync(identity, { level: 9 }),
    ])
    return { identity, br, gzip: gz }
  }
  return async function sendDocument(request: FastifyRequest, reply: FastifyReply) {
    encoded ??= encode()
    const bytes = await encoded
    const coding = negotiate(request.headers['accept-encoding'])
    reply.header('vary', 'Accept-Encoding').type('application/json; charset=utf-8')
    if (coding !== 'identity') reply.header('content-encoding', coding)
    return answerBytes(reply, bytes[coding], null)
  }
}
