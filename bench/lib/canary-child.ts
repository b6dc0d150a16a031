import { Agent, request } from 'node:https'
import { performance } from 'node:perf_hooks'
import { createInterface } from 'node:readline'

// `node bench/lib/canary-child.ts <url> <every ms>`: GET <url>/healthz on its own kept-alive connection,
// a new one as soon as the last answered (at most every <every> ms). Each line on stdin asks for the waits
// since the last one: the answer is a line of JSON {max, count}. In its own process so that it measures
// the gateway's event loop, not its sender's: a bench process that writes and reads hundreds of MiB would
// otherwise time its own TLS work.
const [url, every] = [process.argv[2]!, Number(process.argv[3] ?? 5)]
const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })
let max = 0
let count = 0
let running = true

function once(): Promise<number> {
  return new Promise((resolve) => {
    const started = performance.now()
    const req = request(`${url}/healthz`, { agent }, (res) => {
      res.resume()
      res.on('end', () => resolve(performance.now() - started))
    })
    req.on('error', () => resolve(performance.now() - started))
    req.end()
  })
}

// the first request opens the connection (TLS handshake): not the event loop's doing
await once()
const loop = (async () => {
  while (running) {
    const wait = await once()
    max = Math.max(max, wait)
    count++
    if (wait < every) await new Promise((r) => setTimeout(r, every - wait))
  }
})()

for await (const _line of createInterface({ input: process.stdin })) {
  process.stdout.write(`${JSON.stringify({ max, count })}\n`)
  max = 0
  count = 0
}
running = false
await loop
agent.destroy()
