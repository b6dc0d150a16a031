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
// requests after the first that count for neither figure: an op's code reaches V8's optimising tier and the
// thread's young generation regrows over its first few requests (a fresh gateway's 10k diffs, one after
// another: 228, 164, 145, 128, 89, 67 ms), so "warm" is read once they are behind it, on both sides
const SETTLE = Number(process.env.BENCH_SETTLE ?? 5)
// fresh processes for each op on each side: one sample on a 2-core machine is not a figure (the same first
// request measured 98-146 ms on successive starts), so the median of their firsts
const FRESH = Number(process.env.BENCH_FRESH ?? 3)
// issue 41: the first request of each heavy op after /readyz answers 200 ≤ 1.5× its warm median
const TARGET = 1.5
// the guard's heavy requests (bench/lib/guard-heavy.ts), each checked: 10k and 100k diffs, a 15 MiB
// minify as a raw body, a 64 MiB raw sha256
const IDS = ['diff-10k', 'diff-100k', 'minify-raw', 'sha256-raw'] as const
type Id = (typeof IDS)[number]
// Each op's floor: Node's own HTTPS server doing the same work on its event loop, no gateway and no pool
// (bench/baselines/). What any fresh Node process pays on its first request of that size (new connection,
// code and memory it has not used yet), measured in the same run and the same way as the gateway: a
// first-request ratio at or under the floor's is the gateway adding nothing of its own.
const FLOORS: Record<Id, string> = {
  'diff-10k': 'bench/baselines/bare-diff.ts',
  'diff-100k': 'bench/baselines/bare-diff.ts',
  'minify-raw': 'bench/baselines/bare-stream-minify.ts',
  'sha256-raw': 'bench/baselines/bare-stream-hash.ts',
}

interface Timed {
  first: number
  warm: number
}

type Send = (id: Id) => Promise<number>

// An op's first request to a process that has served none, then SETTLE requests that count for nothing,
// then the median of WARM_ROUNDS, one after another on one kept-alive connection: the same sequence on the
// gateway and on its floor, so that neither side's warm figure is warmer than the other's.
async function firstAndWarm(id: Id, send: Send): Promise<Timed> {
  const first = await send(id)
  for (let i = 0; i < SETTLE; i++) await send(id)
  const ms: number[] = []
  for (let i = 0; i < WARM_ROUNDS; i++) ms.push(await send(id))
  return { first, warm: median(ms) }
}

const heavy = requests([...IDS])

// Requests of the guard's heavy ops on one kept-alive connection (TLS, HTTP/1.1), each checked, timed end
// to end.
function sender(ca: Buffer, url: (path: string) => string, authorization?: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const send = async (id: Id) => {
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

// One op on a fresh gateway (business plan, its JSON limit and budget raised as the guard raises them),
// asked once /readyz says 200: what a paid customer's first request of that op after a deploy or a
// thread's recycle pays, with no other op before it. Then the same op on a fresh floor, asked once it
// answers its readiness GET, the same way.
async function measure(id: Id): Promise<{ gateway: Timed; floor: Timed }> {
  const gateway = await startGateway({
    LOG_LEVEL: 'warn',
    PLANS: JSON.stringify({ business: { max_json_bytes: 64 * MiB, compute_budget_ms: 60_000 } }),
  })
  try {
    const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
    const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'))
    const tls = {
      TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'),
      TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem'),
    }
    await waitReady(gateway.url, ca)
    const toGateway = sender(ca, (path) => `${gateway.url}${path}`, `Bearer ${gateway.key}`)
    const gatewayTimed = await firstAndWarm(id, toGateway.send).finally(toGateway.close)
    // the floor runs while the gateway idles (its certificate is the floor's too)
    const server = await startNode(FLOORS[id], tls, /READY (https:\/\/\S+)/)
    const toFloor = sender(ca, () => `${server.url}/`)
    try {
      await waitReady(server.url, ca)
      return { gateway: gatewayTimed, floor: await firstAndWarm(id, toFloor.send) }
    } finally {
      toFloor.close()
      await server.stop()
    }
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
    // the ops in turn, FRESH times, so that drift falls on each op alike
    const starts = new Map<Id, { gateway: Timed; floor: Timed }[]>(IDS.map((id) => [id, []]))
    for (let i = 0; i < FRESH; i++) for (const id of IDS) starts.get(id)!.push(await measure(id))
    const summary = (side: 'gateway' | 'floor', id: Id) => {
      const runs = starts.get(id)!.map((s) => s[side])
      return {
        first: median(runs.map((c) => c.first)),
        warm: median(runs.map((c) => c.warm)),
        firsts: runs.map((c) => c.first),
      }
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
        { label: `${c.id}, first: gateway ÷ floor`, value: c.gateway.first / c.floor.first, unit: '×' },
      ]),
      ratio: Math.min(...m.map((c) => c.gateway.warm / c.gateway.first)),
    }
  },
}
