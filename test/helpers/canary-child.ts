import https from 'node:https'

// `node test/helpers/canary-child.ts < options.json`: GET /healthz on one keep-alive connection, one after
// another, until its stdin ends; prints {worstMs} as JSON. Its own process, so that what the test's process
// does meanwhile (a collection of a heap earlier test files left, a large body it serialises) is not
// counted as the gateway's. Prints `ready` once the first probe has answered.
interface CanaryOptions {
  url: string
  ca: string
  trace?: boolean
}

const lines = process.stdin.setEncoding('utf8')[Symbol.asyncIterator]()
const first = await lines.next()
const options = JSON.parse(String(first.value)) as CanaryOptions
const agent = new https.Agent({ keepAlive: true, maxSockets: 1 })
const probe = () =>
  new Promise<number>((resolve, reject) => {
    const started = performance.now()
    https
      .get(`${options.url}/healthz`, { ca: options.ca, agent }, (res) => {
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
    if (options.trace && ms > 30)
      process.stderr.write(`canary ${ms.toFixed(0)} ${new Date().toISOString()}\n`)
    worstMs = Math.max(worstMs, ms)
    await new Promise((r) => setTimeout(r, 10))
  }
})()
process.stdout.write('ready\n')
// the test ends stdin when its work is done
while (!(await lines.next()).done) {}
running = false
await probing
agent.destroy()
process.stdout.write(`${JSON.stringify({ worstMs })}\n`)
