import { Agent, request } from 'node:https'
import autocannon from 'autocannon'

export interface LoadResult {
  rps: number
  p50: number
  p99: number
  requests: number
  errors: number
  timeouts: number
  non2xx: number
}

export interface LoadOptions {
  url: string
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string | Buffer
  connections?: number
  duration?: number
  amount?: number
}

// One autocannon run (HTTP/1.1 over TLS to loopback); latency figures in milliseconds.
export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'POST',
    headers: options.headers,
    body: options.body,
    connections: options.connections ?? 32,
    ...(options.amount ? { amount: options.amount } : { duration: options.duration ?? 5 }),
  })
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
  }
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

// The same load from ordinary Node HTTPS clients instead of autocannon: `connections` loops, each sending
// its next request when the last answered, on a kept-alive connection of its own (node:https with an
// agent). They write and parse as most API clients do, more slowly than autocannon's prepared bytes, so
// fewer requests of different connections land in one turn of the server's event loop (issue 41 measures
// Redis decisions with both). Latencies in milliseconds.
export async function loadNode(options: LoadOptions): Promise<LoadResult> {
  const connections = options.connections ?? 32
  const agent = new Agent({ keepAlive: true, maxSockets: connections, rejectUnauthorized: false })
  const deadline = performance.now() + (options.duration ?? 5) * 1000
  const latencies: number[] = []
  let errors = 0
  let non2xx = 0
  const one = () =>
    new Promise<void>((resolve) => {
      const started = performance.now()
      const req = request(
        options.url,
        {
          method: options.method ?? 'POST',
          headers: options.headers,
          agent,
        },
        (res) => {
          res.resume()
          res.on('end', () => {
            latencies.push(performance.now() - started)
            if ((res.statusCode ?? 0) >= 300) non2xx++
            resolve()
          })
        },
      )
      req.on('error', () => {
        errors++
        resolve()
      })
      req.end(options.body)
    })
  const started = performance.now()
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) await one()
    }),
  )
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  const sorted = latencies.sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
  return {
    rps: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    requests: latencies.length,
    errors,
    timeouts: 0,
    non2xx,
  }
}
