import { monthInfo } from '../limits/month.ts'
import type { Store } from './types.ts'

// Per-endpoint usage of a workspace: for each endpoint it called ("POST /v1/hash/:algorithm", the route's
// pattern, never the raw URL) in a UTC month, its answers by outcome and a coarse latency histogram. The
// endpoints are the gateway's keyed routes, so a workspace-month holds at most one record per route and
// method (about thirty), each of LATENCY_BOUNDS_MS.length + 4 numbers, whatever the traffic: the store keeps
// it as long as the month's usage (Redis: 400 days after the month ends; embedded: with the workspace).

// Upper bounds (ms, inclusive) of the latency buckets; a last bucket holds everything slower.
export const LATENCY_BOUNDS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000] as const

export interface EndpointCounts {
  // answers below 400, 4xx (refusals by the limits included) and 5xx
  ok: number
  client_errors: number
  server_errors: number
  // answers per latency bucket: LATENCY_BOUNDS_MS.length + 1 counts
  latency: number[]
}

// workspace id → endpoint → counts to add
export type EndpointBatch = Map<string, Map<string, EndpointCounts>>

export function emptyEndpointCounts(): EndpointCounts {
  return {
    ok: 0,
    client_errors: 0,
    server_errors: 0,
    latency: new Array(LATENCY_BOUNDS_MS.length + 1).fill(0),
  }
}

export function addEndpointCounts(into: EndpointCounts, from: EndpointCounts): void {
  into.ok += from.ok
  into.client_errors += from.client_errors
  into.server_errors += from.server_errors
  for (let i = 0; i < into.latency.length; i++) into.latency[i]! += from.latency[i] ?? 0
}

export function latencyBucket(ms: number): number {
  let i = 0
  while (i < LATENCY_BOUNDS_MS.length && ms > LATENCY_BOUNDS_MS[i]!) i++
  return i
}

export function endpointName(method: string, url: string): string {
  return `${method} ${url}`
}

type Pending = Map<string, Map<string, Map<string, EndpointCounts>>>

function countsIn(pending: Pending, workspaceId: string, method: string, url: string): EndpointCounts {
  let byMethod = pending.get(workspaceId)
  if (!byMethod) {
    byMethod = new Map()
    pending.set(workspaceId, byMethod)
  }
  let byUrl = byMethod.get(method)
  if (!byUrl) {
    byUrl = new Map()
    byMethod.set(method, byUrl)
  }
  let counts = byUrl.get(url)
  if (!counts) {
    counts = emptyEndpointCounts()
    byUrl.set(url, counts)
  }
  return counts
}

// The request path only sets counters in a map (no store call, no string built per request); the map is
// added to the store every few seconds, one call per flush, and reads merge what is not flushed yet.
export class EndpointUsageRecorder {
  #store: Pick<Store, 'addEndpointUsage' | 'endpointUsage'>
  // the UTC month the pending counts belong to, and its bounds (epoch ms)
  #month = ''
  #monthStart = 0
  #monthEnd = 0
  // workspace id → method → route pattern → counts
  #pending: Pending = new Map()
  #timer: NodeJS.Timeout
  #flushing: Promise<void> = Promise.resolve()

  constructor(store: Pick<Store, 'addEndpointUsage' | 'endpointUsage'>, flushMs = 5_000) {
    this.#store = store
    this.#timer = setInterval(() => void this.flush(), flushMs)
    this.#timer.unref()
  }

  note(workspaceId: string, method: string, url: string, status: number, ms: number, now: number): void {
    if (now >= this.#monthEnd || now < this.#monthStart) {
      // another month: what is pending belongs to the one it was counted in
      void this.flush()
      const info = monthInfo(now)
      this.#month = info.month
      this.#monthStart = info.start
      this.#monthEnd = info.end
    }
    const counts = countsIn(this.#pending, workspaceId, method, url)
    if (status >= 500) counts.server_errors++
    else if (status >= 400) counts.client_errors++
    else counts.ok++
    counts.latency[latencyBucket(ms)]!++
  }

  flush(): Promise<void> {
    if (this.#pending.size === 0) return this.#flushing
    const pending = this.#pending
    const month = this.#month
    this.#pending = new Map()
    this.#flushing = this.#flushing
      .then(() => this.#store.addEndpointUsage(month, batchOf(pending)))
      // the store was unreachable: the counts wait for the next flush (of the same month) rather than be lost
      .catch(() => {
        if (month === this.#month) merge(this.#pending, pending)
      })
    return this.#flushing
  }

  // A workspace-month as stored, with what this process has not flushed yet.
  async read(workspaceId: string, month: string): Promise<Record<string, EndpointCounts>> {
    const stored = await this.#store.endpointUsage(workspaceId, month)
    if (month !== this.#month) return stored
    for (const [method, byUrl] of this.#pending.get(workspaceId) ?? []) {
      for (const [url, counts] of byUrl) {
        const name = endpointName(method, url)
        if (!Object.hasOwn(stored, name)) stored[name] = emptyEndpointCounts()
        addEndpointCounts(stored[name]!, counts)
      }
    }
    return stored
  }

  async close(): Promise<void> {
    clearInterval(this.#timer)
    await this.flush()
  }
}

function batchOf(pending: Pending): EndpointBatch {
  const batch: EndpointBatch = new Map()
  for (const [workspaceId, byMethod] of pending) {
    const endpoints = new Map<string, EndpointCounts>()
    for (const [method, byUrl] of byMethod)
      for (const [url, counts] of byUrl) endpoints.set(endpointName(method, url), counts)
    batch.set(workspaceId, endpoints)
  }
  return batch
}

function merge(into: Pending, from: Pending): void {
  for (const [workspaceId, byMethod] of from)
    for (const [method, byUrl] of byMethod)
      for (const [url, counts] of byUrl) addEndpointCounts(countsIn(into, workspaceId, method, url), counts)
}
