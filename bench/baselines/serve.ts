import type { IncomingMessage, ServerResponse } from 'node:http'

// A GET to a bare floor is a readiness probe (bench/first-request.ts asks it before timing, as it asks the
// gateway's /readyz): answered here, without reading a body. True when it was one.
export function answeredReadiness(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== 'GET') return false
  res.end('ready')
  return true
}

// what it needs of a Fastify instance, whichever server (HTTP/1.1 or HTTP/2) the instance was built on
interface Listener {
  listen(options: { port: number; host: string }): Promise<string>
  close(): PromiseLike<unknown>
}

// A Fastify baseline on a free loopback port, announced as `READY <url>` (what bench/lib/processes.ts waits
// for); on SIGTERM it closes the app, then whatever else it holds (`after`: a Redis client), and exits.
export async function serveUntilTerm(app: Listener, after?: () => Promise<unknown>): Promise<void> {
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  process.stdout.write(`READY ${address}\n`)
  process.once('SIGTERM', () => {
    void Promise.resolve(app.close())
      .then(after)
      .then(() => process.exit(0))
  })
}
