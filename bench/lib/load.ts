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
