import { join } from 'node:path'
import { startRedis } from '../test/helpers/redis-server.ts'
import { type LoadOptions, type LoadResult, load, median } from './lib/load.ts'
import { cpuMicros } from './lib/proc-cpu.ts'
import { startGateway, startNode } from './lib/processes.ts'
import type { Scenario, ScenarioRow } from './lib/scenario.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)

// Throws if a run had failures: a benchmark of refusals or errors measures nothing.
export function clean(label: string, r: LoadResult): LoadResult {
  if (r.non2xx || r.errors || r.timeouts) {
    throw new Error(`${label}: non-2xx or errors during the run: ${JSON.stringify(r)}`)
  }
  return r
}

// Requests per second are at the mercy of whatever else shares the machine; CPU time per request of
// the server (and of Redis) much less so, so each measured round also reads the CPU each process used
// (from /proc) and divides it by the round's requests. Figures are medians over the rounds.
export class Target {
  label: string
  url: string
  headers: Record<string, string>
  rps: number[] = []
  p99: number[] = []
  #pids: (number | undefined)[]
  // per process, µs of CPU per request in each measured round
  #cpu: number[][]

  constructor(label: string, url: string, headers: Record<string, string>, pids: (number | undefined)[]) {
    this.label = label
    this.url = url
    this.headers = headers
    this.#pids = pids
    this.#cpu = pids.map(() => [])
  }

  async run(body: string, options: Partial<LoadOptions>, measured: boolean): Promise<void> {
    const before = this.#pids.map(cpuMicros)
    const r = clean(
      this.label,
      await load({ url: `${this.url}/v1/hash/sha256`, headers: this.headers, body, ...options }),
    )
    const after = this.#pids.map(cpuMicros)
    if (measured) {
      this.rps.push(r.rps)
      this.p99.push(r.p99)
      for (const [i, b] of before.entries())
        this.#cpu[i]!.push(((after[i] ?? Number.NaN) - (b ?? Number.NaN)) / r.requests)
    }
  }

  // median µs of CPU per request of process i (NaN where /proc cannot be read)
  cpu(i = 0): number {
    return median(this.#cpu[i]!)
  }

  // median over the rounds of the CPU per request of all this target's processes together
  totalCpu(): number {
    return median(this.#cpu[0]!.map((_, round) => this.#cpu.reduce((sum, c) => sum + c[round]!, 0)))
  }

  rows(cpuLabels: string[]): ScenarioRow[] {
    const rows: ScenarioRow[] = [
      { label: this.label, value: median(this.rps), unit: 'req/s', p99_ms: median(this.p99) },
    ]
    for (const [i, name] of cpuLabels.entries()) {
      const perRequest = this.cpu(i)
      if (Number.isFinite(perRequest))
        rows.push({ label: `  ${name}`, value: perRequest, unit: 'µs CPU/request' })
    }
    return rows
  }
}

export async function alternate(targets: Target[], body: string): Promise<void> {
  for (const t of targets) await t.run(body, { duration: 2 }, false)
  for (let i = 0; i < ROUNDS; i++) for (const t of targets) await t.run(body, { duration: SECONDS }, true)
}

// small-hash again, but the gateway keeps its keys, caps and quotas in Redis (one EVALSHA per
// request, auto-pipelined), against bare Fastify with the same handler and TLS setup, and against the floor
// on Redis (bench/baselines/floor-redis.ts: bare Fastify plus the key check, the same consume.lua call and
// the three headers); the embedded gateway runs in the same rounds for reference.
export const smallHashRedis: Scenario = {
  name: 'small-hash-redis',
  title: 'Small sha256 through the gateway on Redis vs bare Fastify TLS (Node CPU per request)',
  // issue 18: gateway Node CPU per request on Redis ≤ 1.25× bare Fastify TLS, and embedded ≤ Redis
  target: {
    ratio: 0.8,
    text: 'gateway (Redis) Node CPU per request ≤ 1.25× bare Fastify TLS (ratio = bare ÷ gateway CPU ≥ 0.8)',
  },
  async run() {
    const redis = await startRedis()
    const level = process.env.BENCH_LOG_LEVEL ?? 'info'
    const onRedis = await startGateway({ LOG_LEVEL: level, REDIS_URL: redis.url })
    const embedded = await startGateway({ LOG_LEVEL: level })
    const dataDir = /data dir:\s+(\S+)/.exec(onRedis.output())![1]!
    const tls = {
      TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'),
      TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem'),
    }
    const bare = await startNode('bench/baselines/bare-fastify.ts', tls, /READY (https:\/\/\S+)/)
    const floor = await startNode(
      'bench/baselines/floor-redis.ts',
      { ...tls, API_KEY: onRedis.key, REDIS_URL: redis.url },
      /READY (https:\/\/\S+)/,
    )
    const json = { 'content-type': 'application/json' }
    const targets = [
      new Target('bare Fastify TLS', bare.url, json, [bare.child.pid]),
      new Target(
        'floor on Redis: bare + key lookup + consume.lua + headers',
        floor.url,
        {
          ...json,
          authorization: `Bearer ${onRedis.key}`,
        },
        [floor.child.pid, redis.child.pid],
      ),
      new Target('Anvil gateway (Redis)', onRedis.url, { ...json, authorization: `Bearer ${onRedis.key}` }, [
        onRedis.child.pid,
        redis.child.pid,
      ]),
      new Target(
        'Anvil gateway (embedded)',
        embedded.url,
        { ...json, authorization: `Bearer ${embedded.key}` },
        [embedded.child.pid],
      ),
    ]
    try {
      await alternate(targets, JSON.stringify({ input: 'hello world' }))
    } finally {
      await Promise.all([onRedis.stop(), embedded.stop(), bare.stop(), floor.stop()])
      await redis.stop()
    }
    const [b, f, r, e] = targets as [Target, Target, Target, Target]
    return {
      rows: [
        ...b.rows(['server']),
        ...f.rows(['server', 'redis-server']),
        ...r.rows(['gateway', 'redis-server']),
        ...e.rows(['gateway']),
        { label: 'gateway (Redis) ÷ bare, Node CPU', value: r.cpu() / b.cpu(), unit: '× (target ≤ 1.25)' },
        { label: 'floor (Redis) ÷ bare, Node CPU', value: f.cpu() / b.cpu(), unit: '×' },
        { label: 'gateway (Redis) ÷ floor (Redis), Node CPU', value: r.cpu() / f.cpu(), unit: '×' },
        { label: 'gateway (embedded) ÷ bare, Node CPU', value: e.cpu() / b.cpu(), unit: '× (target ≤ 1.35)' },
        { label: 'embedded ÷ Redis, Node CPU', value: e.cpu() / r.cpu(), unit: '× (target ≤ 1)' },
        { label: 'gateway (Redis) ÷ bare, req/s', value: median(r.rps) / median(b.rps), unit: '×' },
      ],
      ratio: b.cpu() / r.cpu(),
    }
  },
}
