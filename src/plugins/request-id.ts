import type { IncomingMessage } from 'node:http'
import { randomBase62 } from '../keys/base62.ts'

const SANE = /^[A-Za-z0-9._:-]{8,128}$/

export function newRequestId(): string {
  return `req_${randomBase62(20)}`
}

// Fastify's genReqId: the client's Request-Id when it is a sane token, else a fresh one.
export function genReqId(req: IncomingMessage): string {
  const given = req.headers['request-id']
  return typeof given === 'string' && SANE.test(given) ? given : newRequestId()
}
