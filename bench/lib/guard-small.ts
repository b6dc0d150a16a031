import { type RedisServer, startRedis } from '../../test/helpers/redis-server.ts'
import { clean } from '../small-hash-redis.ts'
import { type Measured, roundOrder, type Tree } from './guard-compare.ts'
import type { FigureSpec } from './guard-figures.ts'
import { focus, type GuardGateway, type GuardTrees, gatewayState, startTreeGateway } from './guard-trees.ts'
import { type LoadResult, load } from './load.ts'
import { cpuMicros } from './proc-cpu.ts'

const SECONDS = Number(process.env.BENCH_GUARD_SECONDS ?? 3)
const BODY = JSON.stringify({ input: 'hello world' })

interface Target {
  id: string
  tree: Tree
  gateway: GuardGateway
  // the processes whose CPU a request costs: the gateway, and its redis-server on Redis
  pids: (number | undefined)[]
  rounds: number
  // the load's connections (autocannon's default here: 32)
  connections?: number
}

// One load run (autocannon, 32 connections, HTTP/1.1 over TLS) of POST /v1/hash/sha256 with a tiny body:
// the CPU time the target's processes used during it (from /proc), per request answered, in µs.
async function cpuPerRequest(t: Target, seconds: number): Promise<number> {
  const before = t.pids.map(cpuMicros)
  const result = await load({
    url: `${t.gateway.url}/v1/hash/sha256`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.gateway.key}` },
    body: BODY,
    duration: seconds,
    ...(t.connections ? { connections: t.connections } : {}),
  })
  const after = t.pids.map(cpuMicros)
  let r: LoadResult
  try {
    r = clean(`${t.tree} ${t.id}`, result)
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}; ${gatewayState(t.gateway)}`)
  }
  let used = 0
  for (const [i, b] of before.entries()) used += (after[i] ?? Number.NaN) - (b ?? Number.NaN)
  return used / r.requests
}

// cpu-small-embedded, cpu-small-redis and cpu-small-redis-1 (one connection): per tree a gateway on the embedded store, and one on Redis with
// a redis-server of its own; each load run with every other gateway frozen (focus). One redis-server per tree rather than one shared: a gateway writes its first
// workspace and key into its store at its first start (a second gateway on the same Redis would find the
// first one's), and each tree's Redis CPU is then exactly the CPU its gateway's requests cost, read from
// that server's /proc in that gateway's rounds, with nothing of the other tree's in it.
export async function measureSmall(trees: GuardTrees, wanted: { spec: FigureSpec; rounds: number }[]) {
  const started: { stop(): Promise<void> }[] = []
  const redises: RedisServer[] = []
  const targets: Target[] = []
  try {
    for (const name of ['base', 'head'] as const) {
      const tree = trees[name]
      for (const { spec, rounds } of wanted) {
        if (spec.id === 'cpu-small-embedded') {
          const gateway = await startTreeGateway(tree, { LOG_LEVEL: 'info' })
          started.push(gateway)
          targets.push({ id: spec.id, tree: name, gateway, pids: [gateway.child.pid], rounds })
        } else if (spec.id === 'cpu-small-redis' || spec.id === 'cpu-small-redis-1') {
          const redis = await startRedis()
          redises.push(redis)
          const gateway = await startTreeGateway(tree, { LOG_LEVEL: 'info', REDIS_URL: redis.url })
          started.push(gateway)
          targets.push({
            id: spec.id,
            tree: name,
            gateway,
            pids: [gateway.child.pid, redis.child.pid],
            rounds,
            ...(spec.id === 'cpu-small-redis-1' ? { connections: 1 } : {}),
          })
        } else {
          throw new Error(`measureSmall: no such figure ${spec.id}`)
        }
      }
    }
    const all = targets.map((t) => t.gateway)
    const run = (t: Target, seconds: number) => {
      focus([t.gateway], all)
      return cpuPerRequest(t, seconds)
    }
    // a first run each, not measured: connections, JIT, key caches
    for (const t of targets) await run(t, 2)
    const measured: Measured = Object.fromEntries(wanted.map(({ spec }) => [spec.id, { base: [], head: [] }]))
    const most = Math.max(...wanted.map((w) => w.rounds))
    for (let i = 0; i < most; i++) {
      for (const tree of roundOrder(i)) {
        for (const t of targets.filter((x) => x.tree === tree && i < x.rounds)) {
          measured[t.id]![tree].push(await run(t, SECONDS))
        }
      }
    }
    return measured
  } finally {
    await Promise.all(started.map((g) => g.stop()))
    await Promise.all(redises.map((r) => r.stop()))
  }
}
