import { hostname } from 'node:os'
import type { FastifyBaseLogger } from 'fastify'
import pino from 'pino'

export interface AccessEntry {
  reqId: string
  method: string
  route: string
  status: number
  ms: number
  workspace: string | undefined
  // the answer broke off after it started: the code its failure would have answered (an ERR_* name)
  cut?: string
}

export type AccessLog = (entry: AccessEntry) => void

// One JSON line per answered request in the shape pino-http writes (level, time, pid, hostname, req.id,
// req.method, req.url, res.statusCode, responseTime in ms, msg "request completed"), which log pipelines
// already parse, plus `workspace`; req.url is the route pattern, never the raw URL (no ids or query
// strings in logs). Fastify's own lines name the same request id `reqId`. Written straight to the logger's
// destination: pino's generic path (serializers, redaction, the child logger Fastify would bind) costs
// ~7 µs a request at full load; this line costs well under one. Every field is ours and JSON-safe by
// construction: a request id is [A-Za-z0-9._:-] (http/transport/request-id.ts), a method an HTTP token, ids
// base62, a cut's code an ERR_* name; the route pattern goes through JSON.stringify. Nothing from headers
// or bodies.
export function accessLog(logger: FastifyBaseLogger): AccessLog | undefined {
  const root = logger as FastifyBaseLogger & { isLevelEnabled?(level: string): boolean }
  const stream = (logger as unknown as Record<symbol, NodeJS.WritableStream | undefined>)[
    pino.symbols.streamSym
  ]
  if (!stream || root.isLevelEnabled?.('info') !== true) return undefined
  const head = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())},"req":{"id":"`
  const routes = new Map<string, string>()
  return function writeAccessLine(e) {
    let route = routes.get(e.route)
    if (route === undefined) {
      route = JSON.stringify(e.route)
      if (routes.size < 1000) routes.set(e.route, route)
    }
    const workspace = e.workspace === undefined ? '' : `,"workspace":"${e.workspace}"`
    const cut = e.cut === undefined ? '' : `,"cut":"${e.cut}"`
    stream.write(
      `{"level":30,"time":${Date.now()}${head}${e.reqId}","method":"${e.method}","url":${route}},` +
        `"res":{"statusCode":${e.status}},"responseTime":${e.ms}${workspace}${cut},"msg":"request completed"}\n`,
    )
  }
}
