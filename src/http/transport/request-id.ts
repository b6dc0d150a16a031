import type { IncomingMessage } from 'node:http'
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
