import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startRedis } from '../test/helpers/redis-server.ts'
import { type LoadOptions, type LoadResult, load, median } from './lib/load.ts'
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

let ticksPerSecond: number | undefined

// CPU time (user + system, µs) a process has used so far, from /proc (Linux); undefined elsewhere.
function cpuMicros(pid: number | undefined): number | undefined {
  try {
    ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }))
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / ticksPerSecond
  } catch {
    return undefined
  }
}

// Requests per second are at the mercy of whatever else shares the machine; CPU time per request of
// the server (and of Redis) is not, so each target's runs also add up the CPU it used.
export class Target {
  label: string
  url: string
  headers: Record<string, string>
  rps: number[] = []
  p99: number[] = []
  #pids: (number | undefined)[]
  #cpu: number[]
  #requests = 0

  constructor(label: string, url: string, headers: Record<string, string>, pids: (number | undefined)[]) {
    this.label = label
    this.url = url
    this.headers = headers
    this.#pids = pids
    this.#cpu = pids.map(() => 0)
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
      this.#requests += r.requests
      for (const [i, b] of before.entries()) this.#cpu[i]! += (after[i] ?? Number.NaN) - (b ?? Number.NaN)
    }
  }

  rows(cpuLabels: string[]): ScenarioRow[] {
    const rows: ScenarioRow[] = [
      { label: this.label, value: median(this.rps), unit: 'req/s', p99_ms: median(this.p99) },
    ]
    for (const [i, name] of cpuLabels.entries()) {
      const perRequest = this.#cpu[i]! / this.#requests
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
// request, auto-pipelined), against bare Fastify with the same handler and TLS setup; the embedded
// gateway runs in the same rounds for reference.
export const smallHashRedis: Scenario = {
  name: 'small-hash-redis',
  title: 'Small sha256 through the gateway on Redis vs bare Fastify TLS',
  target: { ratio: 0.9, text: 'gateway on Redis ≥ 0.9× bare Fastify req/s' },
  async run() {
    const redis = await startRedis()
    const level = process.env.BENCH_LOG_LEVEL ?? 'info'
    const onRedis = await startGateway({ LOG_LEVEL: level, REDIS_URL: redis.url })
    const embedded = await startGateway({ LOG_LEVEL: level })
    const dataDir = /data dir:\s+(\S+)/.exec(onRedis.output())![1]!
    const bare = await startNode(
      'bench/baselines/bare-fastify.ts',
      { TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'), TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem') },
      /READY (https:\/\/\S+)/,
    )
    const json = { 'content-type': 'application/json' }
    const targets = [
      new Target('bare Fastify TLS', bare.url, json, [bare.child.pid]),
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
      await Promise.all([onRedis.stop(), embedded.stop(), bare.stop()])
      await redis.stop()
    }
    const [b, r, e] = targets as [Target, Target, Target]
    return {
      rows: [...b.rows(['server']), ...r.rows(['gateway', 'redis-server']), ...e.rows(['gateway'])],
      ratio: median(r.rps) / median(b.rps),
    }
  },
}
