import https from 'node:https'
import type { ServerProcess } from './server-process.ts'

// GET /healthz on its own keep-alive connection, one after another, for as long as `work` runs: the
// longest any of them waited is how long the gateway's event loop was held. CANARY_TRACE=1 logs each slow
// probe with its time, to line it up with the gateway's log.
export async function canary<T>(
  server: ServerProcess,
  work: () => Promise<T>,
): Promise<{ result: T; worstMs: number }> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 })
  const probe = () =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now()
      https
        .get(`${server.url}/healthz`, { ca: server.ca, agent }, (res) => {
          res.resume()
          res.on('end', () => resolve(performance.now() - started))
        })
        .on('error', reject)
    })
  await probe()
  let running = true
  let worstMs = 0
  const probing = (async () => {
    while (running) {
      const ms = await probe()
      if (process.env.CANARY_TRACE && ms > 30) console.log('canary', ms.toFixed(0), new Date().toISOString())
      worstMs = Math.max(worstMs, ms)
      await new Promise((r) => setTimeout(r, 10))
    }
  })()
  try {
    const result = await work()
    return { result, worstMs }
  } finally {
    running = false
    await probing
    agent.destroy()
  }
}
