import { readFileSync } from 'node:fs'
import { Agent } from 'node:https'
import { join } from 'node:path'
import { requests } from './lib/guard-heavy.ts'
import { median } from './lib/load.ts'
import { postTimed } from './lib/post-timed.ts'
import { startGateway, startNode, waitReady } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'

const MiB = 1024 * 1024
const WARM_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
// fresh gateways, each giving one first request per op: one sample on a 2-core machine is not a figure
// (the same first request measured 98-146 ms on successive starts), so the median of their firsts
const FRESH = Number(process.env.BENCH_FRESH ?? 3)
// issue 41: the first request of each heavy op after /readyz answers 200 ≤ 1.5× its warm median
const TARGET = 1.5
// the guard's heavy requests (bench/lib/guard-heavy.ts), each checked: 10k and 100k diffs, a 15 MiB
// minify as a raw body, a 64 MiB raw sha256
const IDS = ['diff-10k', 'diff-100k', 'minify-raw', 'sha256-raw'] as const
// Each op's floor: Node's own HTTPS server doing the same work on its event loop, no gateway and no pool
// (bench/baselines/), a fresh process for each op's first request (the gateway serves its four first
// requests in one fresh process, so its later ones are if anything warmer). What any fresh Node process
// pays on its first request of that size (new connection, code and memory it has not used yet), measured
// in the same run: a first-request ratio at or under the floor's is the gateway adding nothing of its own.
const FLOORS: Record<(typeof IDS)[number], string> = {
  'diff-10k': 'bench/baselines/bare-diff.ts',
  'diff-100k': 'bench/baselines/bare-diff.ts',
  'minify-raw': 'bench/baselines/bare-stream-minify.ts',
  'sha256-raw': 'bench/baselines/bare-stream-hash.ts',
}

interface Timed {
  id: (typeof IDS)[number]
  first: number
  warm: number
}

// The median of WARM_ROUNDS requests of an op, one after another on one kept-alive connection.
async function warmMedian(id: string, send: (id: string) => Promise<number>): Promise<number> {
  const ms: number[] = []
  for (let i = 0; i < WARM_ROUNDS; i++) ms.push(await send(id))
  return median(ms)
}

// A fresh gateway (business plan, its JSON limit and budget raised as the guard raises them), ready when
// /readyz says 200; then each op's first request, one after another, timed end to end on a kept-alive
// connection (TLS, HTTP/1.1), and then WARM_ROUNDS more of each, whose median is the warm figure. What a
// paid customer's first requests after a deploy or a thread's recycle pay. Then each op's floor (FLOORS),
// the same way, while the gateway idles.
async function measure(): Promise<{ gateway: Timed[]; floor: Timed[] }> {
  const heavy = requests([...IDS])
  const gateway = await startGateway({
    LOG_LEVEL: 'warn',
    PLANS: JSON.stringify({ business: { max_json_bytes: 64 * MiB, compute_budget_ms: 60_000 } }),
  })
  const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
  const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'))
  const tls = {
    TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'),
    TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem'),
  }
  const sender = (url: (path: string) => string, authorization?: string) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const send = async (id: string) => {
      const h = heavy.get(id)!
      const r = await postTimed(url(h.path), {
        ca,
        agent,
        headers: { ...h.headers, ...(authorization ? { authorization } : {}) },
        body: h.body,
      })
      const wrong = h.check(r.status, r.body)
      if (wrong) throw new Error(`${id}: ${wrong}`)
      return r.ms
    }
    return { send, close: () => agent.destroy() }
  }
  try {
    await waitReady(gateway.url, ca)
    // every op's first request, one after another, then each op's warm rounds
    const toGateway = sender((path) => `${gateway.url}${path}`, `Bearer ${gateway.key}`)
    const first = new Map<string, number>()
    for (const id of IDS) first.set(id, await toGateway.send(id))
    const measured: Timed[] = []
    for (const id of IDS)
      measured.push({ id, first: first.get(id)!, warm: await warmMedian(id, toGateway.send) })
    toGateway.close()
    // the floors, each a fresh process for its op's first request (the gateway idle meanwhile)
    const floor: Timed[] = []
    for (const id of IDS) {
      const server = await startNode(FLOORS[id], tls, /READY (https:\/\/\S+)/)
      const toFloor = sender(() => `${server.url}/`)
      try {
        await waitReady(server.url, ca)
        const first = await toFloor.send(id)
        floor.push({ id, first, warm: await warmMedian(id, toFloor.send) })
      } finally {
        toFloor.close()
        await server.stop()
      }
    }
    return { gateway: measured, floor }
  } finally {
    await gateway.stop()
  }
}

export const firstRequest: Scenario = {
  name: 'first-request',
  title:
    'The first request of each heavy op after /readyz answers 200, against its warm median (a fresh gateway)',
  target: {
    ratio: 1 / TARGET,
    text: `first ≤ ${TARGET}× warm for every op (ratio = warm ÷ first, worst op)`,
  },
  async run() {
    const starts: Awaited<ReturnType<typeof measure>>[] = []
    for (let i = 0; i < FRESH; i++) starts.push(await measure())
    const summary = (side: 'gateway' | 'floor', id: string) => {
      const of = (pick: (c: Timed) => number) =>
        median(starts.map((s) => pick(s[side].find((c) => c.id === id)!)))
      const firsts = starts.map((s) => s[side].find((c) => c.id === id)!.first)
      return { first: of((c) => c.first), warm: of((c) => c.warm), firsts }
    }
    const m = IDS.map((id) => ({ id, gateway: summary('gateway', id), floor: summary('floor', id) }))
    for (const c of m) {
      const times = c.gateway.first / c.gateway.warm
      const floorTimes = c.floor.first / c.floor.warm
      process.stdout.write(
        `  ${c.id}: first ${c.gateway.first.toFixed(0)} ms (median of ${c.gateway.firsts.map((f) => f.toFixed(0)).join(', ')}), ` +
          `warm ${c.gateway.warm.toFixed(0)} ms = ${times.toFixed(2)}× — ` +
          `${times <= TARGET ? 'meets' : 'MISSES'} target (≤ ${TARGET}×); ` +
          `floor: first ${c.floor.first.toFixed(0)} ms, warm ${c.floor.warm.toFixed(0)} ms = ${floorTimes.toFixed(2)}×` +
          `${floorTimes > TARGET ? ' (the floor is over the target)' : ''}\n`,
      )
    }
    return {
      rows: m.flatMap((c) => [
        {
          label: `${c.id}, first after /readyz (median of ${FRESH} fresh gateways)`,
          value: c.gateway.first,
          unit: 'ms',
        },
        { label: `${c.id}, warm median`, value: c.gateway.warm, unit: 'ms' },
        { label: `${c.id}, floor: first in a fresh bare Node server`, value: c.floor.first, unit: 'ms' },
        { label: `${c.id}, floor: warm median`, value: c.floor.warm, unit: 'ms' },
      ]),
      ratio: Math.min(...m.map((c) => c.gateway.warm / c.gateway.first)),
    }
  },
}
