import {
  addEndpointCounts,
  type EndpointCounts,
  emptyEndpointCounts,
  LATENCY_BOUNDS_MS,
} from '../../store/endpoint-usage.ts'

const PERCENTILES = { p50: 0.5, p95: 0.95, p99: 0.99 } as const

// The upper bound of the bucket the q-quantile answer falls in: it took at most that long. null: it is in
// the last, unbounded bucket.
function percentile(histogram: readonly number[], total: number, q: number): number | null {
  const rank = Math.ceil(q * total)
  let seen = 0
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i]!
    if (seen >= rank) return LATENCY_BOUNDS_MS[i] ?? null
  }
  return null
}

export function latencyView(histogram: readonly number[]) {
  const total = histogram.reduce((sum, n) => sum + n, 0)
  if (total === 0) return null
  return {
    p50: percentile(histogram, total, PERCENTILES.p50),
    p95: percentile(histogram, total, PERCENTILES.p95),
    p99: percentile(histogram, total, PERCENTILES.p99),
  }
}

// "/v1/hash/:algorithm" → "/v1/hash/{algorithm}", as the OpenAPI document and docs/api.md name it
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}')

// A month's per-endpoint counts as the usage page and the console API show them: the most answered
// endpoint first, and the workspace's totals over all of them.
export function endpointsView(stats: Record<string, EndpointCounts>) {
  const total = emptyEndpointCounts()
  const endpoints = Object.entries(stats).map(([name, counts]) => {
    addEndpointCounts(total, counts)
    const cut = name.indexOf(' ')
    return {
      method: name.slice(0, cut),
      path: openApiPath(name.slice(cut + 1)),
      ok: counts.ok,
      client_errors: counts.client_errors,
      server_errors: counts.server_errors,
      latency_ms: latencyView(counts.latency),
      latency_histogram: counts.latency,
    }
  })
  const answered = (e: { ok: number; client_errors: number; server_errors: number }) =>
    e.ok + e.client_errors + e.server_errors
  endpoints.sort((a, b) => answered(b) - answered(a) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return {
    answers: {
      ok: total.ok,
      client_errors: total.client_errors,
      server_errors: total.server_errors,
      latency_ms: latencyView(total.latency),
    },
    latency_bounds_ms: [...LATENCY_BOUNDS_MS],
    endpoints,
  }
}
