import { Agent, request } from 'node:https'
import { performance } from 'node:perf_hooks'
import { runChild } from './child.ts'

export interface ProbeOptions {
  url: string
  headers: Record<string, string>
  body: string
  // requests in flight at once, each on its own kept-alive connection, each sent when the last one answered
  connections: number
  seconds: number
}

export interface ProbeResult {
  p50: number
  p99: number
  requests: number
  failures: number
}

// Like autocannon's closed loop, with latencies kept to the microsecond: autocannon reports whole
// milliseconds, so a quiet p99 under 1 ms and a loaded one of 1.4 ms read as "0 or 1" and "1 or 2",
// and a ratio of two such numbers says nothing. Loopback, the gateway's self-signed certificate.
export async function probe(options: ProbeOptions): Promise<ProbeResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections, rejectUnauthorized: false })
  const latencies: number[] = []
  let failures = 0
  const end = performance.now() + options.seconds * 1000
  function once(): Promise<void> {
    return new Promise((resolve) => {
      const started = performance.now()
      const req = request(options.url, { method: 'POST', agent, headers: options.headers }, (res) => {
        res.resume()
        res.on('end', () => {
          if (res.statusCode === 200) latencies.push(performance.now() - started)
          else failures++
          resolve()
        })
      })
      req.on('error', () => {
        failures++
        resolve()
      })
      req.end(options.body)
    })
  }
  async function lane(): Promise<void> {
    while (performance.now() < end) await once()
  }
  await Promise.all(Array.from({ length: options.connections }, lane))
  agent.destroy()
  latencies.sort((a, b) => a - b)
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN
  return { p50: at(0.5), p99: at(0.99), requests: latencies.length, failures }
}

const CHILD = new URL('./probe-child.ts', import.meta.url).pathname

// probe(options) in a process of its own (bench/lib/probe-child.ts), for a caller whose own event loop is
// busy or shared (a test file in vitest's shared process): what it measures is then the server's latency.
export function probeInProcess(options: ProbeOptions): Promise<ProbeResult> {
  return runChild<ProbeResult>(CHILD, options)
}
