import { UNLIMITED, workspaceKey } from './lib/admin.ts'
import { type LoadOptions, load, median } from './lib/load.ts'
import { loadInProcess } from './lib/load-process.ts'
import { type ProbeOptions, probe } from './lib/probe.ts'
import { type Gateway, startGateway } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'
import { streamInProcess } from './lib/stream-process.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
// The flood's load generator runs in its own process at this nice value, standing in for clients on other
// machines (BENCH_FLOOD_NICE=0 makes it compete as an equal). In the bench's own process it shared the
// probe's event loop, and the probe measured its own client's stalls (paid p99 16 ms, against 5-7 ms).
const FLOOD_NICE = Number(process.env.BENCH_FLOOD_NICE ?? 10)

// Heavy free-plan diffs (just under the free 256 KiB body limit) that go to the free pool.
export function heavyDiffBody(): string {
  const left = Array.from({ length: 1500 }, (_, i) => ({
    id: i,
    name: `user ${i}`,
    tags: ['a', 'b', 'c'],
    score: i * 7,
  }))
  const right = left.map((item, i) => (i % 20 === 0 ? { ...item, score: item.score + 1 } : item)).reverse()
  return JSON.stringify({ left: { users: left }, right: { users: right }, output: 'both' })
}

// What both isolation cases (and their fast forms, test/bench/isolation.test.ts) time: a paid tenant's small
// sha256 requests, 4 in flight.
export function paidSmallRequests(gateway: Gateway, key: string, seconds: number): ProbeOptions {
  return {
    url: `${gateway.url}/v1/hash/sha256`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ input: 'hello world' }),
    connections: 4,
    seconds,
  }
}

// The same requests as one autocannon run, to warm connections, code paths and the pool's threads.
export function warmUp(steady: ProbeOptions, seconds: number): Promise<unknown> {
  const { seconds: _, ...request } = steady
  return load({ ...request, duration: seconds })
}

// Case (a)'s load: 16 connections of heavy diffs from a free workspace.
export function freeDiffFlood(gateway: Gateway, key: string, seconds: number): LoadOptions {
  return {
    url: `${gateway.url}/v1/json/diff`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: heavyDiffBody(),
    connections: 16,
    duration: seconds,
  }
}

// Case (b)'s load: raw bodies of `bytes` streamed to json/format from a pro workspace, two at a time.
export function proRawStreams(gateway: Gateway, key: string, bytes: number, seconds: number) {
  return { url: `${gateway.url}/v1/json/format`, key, bytes, lanes: 2, seconds }
}

// A paid workspace's small-request p99 with and without 16 connections flooding a free workspace with heavy
// diffs: the tiers' pools keep the flood's work off the paid threads and off the event loop.
export const isolation: Scenario = {
  name: 'isolation',
  title: 'Paid small-request p99 under a free-plan flood of heavy diffs vs without',
  target: { ratio: 0.5, text: 'p99 with flood ≤ 2× p99 without (ratio = without ÷ with ≥ 0.5)' },
  async run() {
    // BENCH_ADMISSION_WAIT_MS=0: the gateway refuses a full pool's large bodies at once instead of letting
    // them wait unread for a place (docs/dispatch.md, Admission), to compare the two
    const admission = process.env.BENCH_ADMISSION_WAIT_MS
    const gateway = await startGateway({
      LOG_LEVEL: 'warn',
      ...(admission === undefined ? {} : { POOL_ADMISSION_WAIT_MS: admission }),
    })
    const paid = await workspaceKey(gateway, 'pro', UNLIMITED)
    const free = await workspaceKey(gateway, 'free', UNLIMITED)
    const steady = paidSmallRequests(gateway, paid, SECONDS)
    const flood = freeDiffFlood(gateway, free, SECONDS)
    const quiet: number[] = []
    const loud: number[] = []
    let floodStats = { rps: 0, non2xx: 0 }
    try {
      await warmUp(steady, 2)
      for (let round = 0; round < 2; round++) {
        quiet.push((await probe(steady)).p99)
        const [underFlood, f] = await Promise.all([probe(steady), loadInProcess(flood, FLOOD_NICE)])
        loud.push(underFlood.p99)
        floodStats = { rps: f.rps, non2xx: f.non2xx }
      }
    } finally {
      await gateway.stop()
    }
    const without = median(quiet)
    const withFlood = median(loud)
    return {
      rows: [
        { label: 'paid p99, quiet', value: without, unit: 'ms' },
        { label: 'paid p99, under free flood', value: withFlood, unit: 'ms' },
        { label: `free flood (${floodStats.non2xx} non-2xx)`, value: floodStats.rps, unit: 'diffs/s' },
      ],
      ratio: without / Math.max(withFlood, 0.001),
    }
  },
}

const MiB = 1024 * 1024

// (b) Issue 14: a pro tenant streaming 90 MiB raw bodies to json/format, two at a time, raised every other
// tenant's small-request p99 from 4 ms to 3.4 s, because raw bodies were formatted on the event loop. Now
// they are formatted on a paid-pool thread (src/exec/stream-run.ts) and the event loop only moves bytes.
export const isolationStream: Scenario = {
  name: 'isolation-stream',
  title: 'Paid small-request p99 while a pro tenant streams 90 MiB raw bodies to json/format, two at a time',
  target: { ratio: 0.5, text: 'p99 while streaming ≤ 2× p99 without (ratio = without ÷ with ≥ 0.5)' },
  async run() {
    const gateway = await startGateway({ LOG_LEVEL: 'warn' })
    const paid = await workspaceKey(gateway, 'pro', UNLIMITED)
    const streamer = await workspaceKey(gateway, 'pro', UNLIMITED)
    const steady = paidSmallRequests(gateway, paid, SECONDS)
    const streams = proRawStreams(gateway, streamer, 90 * MiB, SECONDS)
    const quiet: number[] = []
    const loud: number[] = []
    let streamed = { uploads: 0, failures: 0, mib: 0 }
    try {
      await warmUp(steady, 2)
      for (let round = 0; round < 2; round++) {
        quiet.push((await probe(steady)).p99)
        const [underStreams, s] = await Promise.all([probe(steady), streamInProcess(streams, FLOOD_NICE)])
        loud.push(underStreams.p99)
        streamed = s
      }
    } finally {
      await gateway.stop()
    }
    const without = median(quiet)
    const withStreams = median(loud)
    return {
      rows: [
        { label: 'paid p99, quiet', value: without, unit: 'ms' },
        { label: 'paid p99, pro streams 2×90 MiB', value: withStreams, unit: 'ms' },
        {
          label: `streamed (${streamed.uploads} bodies, ${streamed.failures} failed)`,
          value: streamed.mib / SECONDS,
          unit: 'MiB/s',
        },
      ],
      ratio: without / Math.max(withStreams, 0.001),
    }
  },
}
