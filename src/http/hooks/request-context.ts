import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { randomBase62, toBase62 } from '../../lib/ids.ts'

const SANE = /^[A-Za-z0-9._:-]{8,128}$/
// A random per-process prefix and a counter: unique across gateways, and no crypto call per request.
const PREFIX = `req_${randomBase62(14)}`
let counter = 0

export function newRequestId(): string {
  counter = (counter + 1) % 56_800_235_584 // 62^6
  return PREFIX + toBase62(counter, 6)
}

// Fastify's genReqId: the client's Request-Id when it is a sane token, else a fresh one.
export function genReqId(req: IncomingMessage): string {
  const given = req.headers['request-id']
  return typeof given === 'string' && SANE.test(given) ? given : newRequestId()
}

// Every response carries Request-Id; and request.routeOptions builds a fresh object on each read, so the
// matched route's config is read once here for the hooks and parsers that follow.
async function requestContextPlugin(app: FastifyInstance): Promise<void> {
  // null until prepareRequest, the first onRequest hook, runs: everything that reads it runs after that
  app.decorateRequest('routeConfig', null as unknown as FastifyRequest['routeConfig'])
  app.addHook('onRequest', function prepareRequest(request, reply, done) {
    reply.header('request-id', request.id)
    request.routeConfig = request.routeOptions.config
    done()
  })
}

export const requestContext = fp(requestContextPlugin, { name: 'anvil-request-context' })
