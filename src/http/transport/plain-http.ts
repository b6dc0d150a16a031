import type { Server, Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { errorBody } from '../../errors.ts'
import { newRequestId } from './request-id.ts'

// A TLS record starts with its content type: 22 is a handshake, the first thing a TLS client sends.
const TLS_HANDSHAKE = 0x16
// what plain HTTP/1.x starts with: a method token, then a space
const HTTP_REQUEST = /^[A-Z]{3,10} /
// the request line's target and the Host header, read from the first bytes only
const REQUEST_LINE = /^[A-Z]{3,10} (\/[^\s]{0,200}) HTTP\/1\.[01]\r?\n/
const HOST = /\r?\nhost:[ \t]*([A-Za-z0-9.:[\]-]{1,255})[ \t]*\r?\n/i
const SCANNED = 8192

// Plain HTTP sent to the TLS listener (http:// for https://) used to get an empty reply: the TLS layer
// dropped what it could not read as a handshake. The listener's first bytes tell the two apart, before TLS
// sees them: a handshake goes on to TLS (its bytes handed over as they came), plain HTTP is answered, in
// plain HTTP, with the https URL to use, and closed. Costs each new connection one read of its first bytes;
// requests on a connection cost nothing.
export function answerPlainHttp(app: FastifyInstance, options: { firstByteTimeoutMs: number }): void {
  const server = app.server as unknown as Server
  const tlsListeners = server.listeners('connection') as ((socket: Socket) => void)[]
  server.removeAllListeners('connection')
  // connections whose first bytes have not come yet: ended when the gateway closes, so close never waits
  const waiting = new Set<Socket>()

  server.on('connection', function firstBytes(socket: Socket) {
    waiting.add(socket)
    // a client that connects and sends nothing is held no longer than one that sends slow headers
    socket.setTimeout(options.firstByteTimeoutMs, () => socket.destroy())
    socket.once('close', () => waiting.delete(socket))
    socket.once('readable', function sortConnection() {
      waiting.delete(socket)
      socket.setTimeout(0)
      const chunk = socket.read() as Buffer | null
      if (chunk === null) return
      if (chunk[0] === TLS_HANDSHAKE || !HTTP_REQUEST.test(chunk.toString('latin1', 0, 12))) {
        // TLS (or garbage, which TLS refuses as it always has): its bytes go back where TLS reads first
        socket.unshift(chunk)
        for (const listener of tlsListeners) listener.call(server, socket)
        return
      }
      socket.end(plainHttpAnswer(chunk.toString('latin1', 0, SCANNED)))
    })
  })

  app.addHook('preClose', function endWaitingConnections(done) {
    for (const socket of waiting) socket.destroy()
    waiting.clear()
    done()
  })
}

// 400 ERR_HTTPS_REQUIRED in the error envelope, naming the https URL of the request when its Host header
// and target are plain enough to repeat
export function plainHttpAnswer(head: string): string {
  const host = HOST.exec(head)?.[1]
  const target = REQUEST_LINE.exec(head)?.[1] ?? '/'
  const url = host ? `https://${host}${target}` : undefined
  const body = JSON.stringify(
    errorBody(
      'ERR_HTTPS_REQUIRED',
      url
        ? `This port speaks HTTPS only: use ${url}`
        : 'This port speaks HTTPS only: use https:// with the same host and port.',
      url ? { https_url: url } : undefined,
    ),
  )
  return [
    'HTTP/1.1 400 Bad Request',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `Request-Id: ${newRequestId()}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n')
}
