import { join } from 'node:path'
import { Redis } from 'ioredis'
import { startRedis } from '../test/helpers/redis-server.ts'
import { prepareBaseTree } from './lib/base-tree.ts'
import { type LoadOptions, type LoadResult, load, loadNode, median } from './lib/load.ts'
import { cpuMicros } from './lib/proc-cpu.ts'
import { startGateway, startGatewayWithContractFloor, startNode } from './lib/processes.ts'
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

export interface TargetOptions {
  // concurrent connections of the load (autocannon's default here is 32)
  connections?: number
  // a cumulative count read before and after each measured round (e.g. a Redis server's EVALSHA calls),
  // reported per request
  count?: () => Promise<number>
  // the load's clients: autocannon (default), or ordinary Node HTTPS clients (load.ts, loadNode)
  clients?: 'autocannon' | 'node'
}

// Requests per second are at the mercy of whatever else shares the machine; CPU time per request of
// the server (and of Redis) much less so, so each measured round also reads the CPU each process used
// (from /proc) and divides it by the round's requests. Figures are medians over the rounds.
export class Target {
  label: string
  url: string
  headers: Record<string, string>
  rps: number[] = []
  p50: number[] = []
  p99: number[] = []
  // the count option's increase per request, per measured round
  counted: number[] = []
  #pids: (number | undefined)[]
  // per process, µs of CPU per request in each measured round
  #cpu: number[][]
  #options: TargetOptions

  constructor(
    label: string,
    url: string,
    headers: Record<string, string>,
    pids: (number | undefined)[],
    options: TargetOptions = {},
  ) {
    this.label = label
    this.url = url
    this.headers = headers
    this.#pids = pids
    this.#cpu = pids.map(() => [])
    this.#options = options
  }

  async run(body: string, options: Partial<LoadOptions>, measured: boolean): Promise<void> {
    const counted = measured ? await this.#options.count?.() : undefined
    const before = this.#pids.map(cpuMicros)
    const r = clean(
      this.label,
      await (this.#options.clients === 'node' ? loadNode : load)({
        url: `${this.url}/v1/hash/sha256`,
        headers: this.headers,
        body,
        ...(this.#options.connections ? { connections: this.#options.connections } : {}),
        ...options,
      }),
    )
    const after = this.#pids.map(cpuMicros)
    if (measured) {
      this.rps.push(r.rps)
      this.p50.push(r.p50)
      this.p99.push(r.p99)
      for (const [i, b] of before.entries())
        this.#cpu[i]!.push(((after[i] ?? Number.NaN) - (b ?? Number.NaN)) / r.requests)
      if (counted !== undefined) this.counted.push(((await this.#options.count!()) - counted) / r.requests)
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
    if (this.counted.length) {
      rows.push({
        label: '  decisions per Redis call',
        value: 1 / median(this.counted),
        unit: 'requests/EVALSHA',
      })
    }
    return rows
  }
}

// The contract floor alone, the same code in a gateway's process, and the gateway beside it in that process
// (bench/baselines/floor-contract-in-gateway.ts): what the process costs the contract floor, and what the
// gateway's path costs over it there. `store` names the store in the labels (" (Redis)" or "").
export function processRows(alone: Target, inProcess: Target, beside: Target, store: string): ScenarioRow[] {
  return [
    ...inProcess.rows(['server']),
    ...beside.rows(['server']),
    {
      label: `contract floor${store} in a gateway's process ÷ alone, Node CPU`,
      value: inProcess.cpu() / alone.cpu(),
      unit: '× (the process)',
    },
    {
      label: `gateway${store} ÷ contract floor${store}, both in one gateway process, Node CPU`,
      value: beside.cpu() / inProcess.cpu(),
      unit: '× (the path)',
    },
  ]
}

export async function alternate(targets: Target[], body: string): Promise<void> {
  for (const t of targets) await t.run(body, { duration: 2 }, false)
  for (let i = 0; i < ROUNDS; i++) for (const t of targets) await t.run(body, { duration: SECONDS }, true)
}

// EVALSHA calls a redis-server has answered so far (INFO commandstats)
export function evalshaCalls(client: Redis): () => Promise<number> {
  return async () => {
    const m = /cmdstat_evalsha:calls=(\d+)/.exec(String(await client.info('commandstats')))
    return m ? Number(m[1]) : 0
  }
}

// The load of the Redis figures (issue 26: "16 connections"), and the sweep of docs/decisions.md
const CONNECTIONS = 16
const SWEEP = [1, 64]

// small-hash again, but the gateway keeps its keys, caps and quotas in Redis (the decisions of each
// event-loop turn batched into one call, src/store/redis/consume-batch.ts), against bare Fastify with the
// same handler and TLS setup, and against two floors on Redis (bench/baselines/floor-redis.ts: bare
// Fastify plus the key check, consume.lua and the three headers; one call per request, and batched as the
// gateway batches); the embedded gateway runs in the same rounds, for the p99 comparison and for what
// Redis costs the gateway (gateway on Redis − embedded). With BENCH_BASE_REF (a commit, e.g. the one
// before batching) that commit's gateway on the same Redis runs in the same rounds too. Then the gateway
// on Redis and embedded at 1 and 64 connections: the cost per decision and the latency at each load.
export const smallHashRedis: Scenario = {
  name: 'small-hash-redis',
  title:
    'Small sha256 through the gateway on Redis vs bare Fastify TLS (Node CPU per request, 16 connections)',
  // issue 26: gateway Node CPU per request on Redis ≤ 1.4× bare Fastify TLS
  target: {
    ratio: 1 / 1.4,
    text: 'gateway (Redis) Node CPU per request ≤ 1.4× bare Fastify TLS (ratio = bare ÷ gateway CPU ≥ 0.714)',
  },
  async run() {
    const redis = await startRedis()
    const stats = new Redis(redis.url)
    const baseRef = process.env.BENCH_BASE_REF
    const base = baseRef ? await prepareBaseTree(baseRef) : undefined
    // the base commit's gateway gets a redis-server of its own (both would bootstrap the same keys)
    const redisBefore = base ? await startRedis() : undefined
    const statsBefore = redisBefore ? new Redis(redisBefore.url) : undefined
    // the process that is a gateway and the contract floor at once gets one too, for the same reason
    const redisShared = await startRedis()
    const level = process.env.BENCH_LOG_LEVEL ?? 'info'
    const running: { stop(): Promise<void> }[] = []
    const started = <T extends { stop(): Promise<void> }>(r: T): T => {
      running.push(r)
      return r
    }
    try {
      const onRedis = started(await startGateway({ LOG_LEVEL: level, REDIS_URL: redis.url }))
      const embedded = started(await startGateway({ LOG_LEVEL: level }))
      const before =
        base && redisBefore
          ? started(await startGateway({ LOG_LEVEL: level, REDIS_URL: redisBefore.url }, base))
          : undefined
      const dataDir = /data dir:\s+(\S+)/.exec(onRedis.output())![1]!
      const tls = {
        TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'),
        TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem'),
      }
      const ready = /READY (https:\/\/\S+)/
      const bare = started(await startNode('bench/baselines/bare-fastify.ts', tls, ready))
      const floorEnv = { ...tls, API_KEY: onRedis.key, REDIS_URL: redis.url }
      const floor = started(await startNode('bench/baselines/floor-redis.ts', floorEnv, ready))
      const floorBatched = started(
        await startNode('bench/baselines/floor-redis.ts', { ...floorEnv, FLOOR_BATCH: '1' }, ready),
      )
      // issue 41's floor: the same, its decision a one-line script (batched per turn)
      const floorOneLine = started(
        await startNode('bench/baselines/floor-redis.ts', { ...floorEnv, FLOOR_SCRIPT: 'oneline' }, ready),
      )
      // and a script that reads and writes what a run's exact decision must, deciding nothing (TIME, one
      // HMGET and one HSET of a run's five fields, a reply of 7 doubles: bench/baselines/redis-decide.ts 'io')
      const floorIo = started(
        await startNode('bench/baselines/floor-redis.ts', { ...floorEnv, FLOOR_SCRIPT: 'io' }, ready),
      )
      // issue 41's contract floor on Redis: validation, limits, metrics, the access line, its decisions by
      // consume.lua batched per turn (bench/baselines/floor-contract.ts with REDIS_URL)
      const contractOnRedis = started(await startNode('bench/baselines/floor-contract.ts', floorEnv, ready))
      // and the same contract floor in a process that is also a gateway on Redis (bench/small-hash.ts)
      const shared = started(
        await startGatewayWithContractFloor({ LOG_LEVEL: level, REDIS_URL: redisShared.url }),
      )
      const json = { 'content-type': 'application/json' }
      const key = (k: string) => ({ ...json, authorization: `Bearer ${k}` })
      const calls = evalshaCalls(stats)
      const at = (connections: number) => ({ connections })
      const onRedisAt = (connections: number, label = 'Anvil gateway (Redis)') =>
        new Target(label, onRedis.url, key(onRedis.key), [onRedis.child.pid, redis.child.pid], {
          connections,
          count: calls,
        })
      const embeddedAt = (connections: number, label = 'Anvil gateway (embedded)', clients?: 'node') =>
        new Target(label, embedded.url, key(embedded.key), [embedded.child.pid], { connections, clients })
      // a floor whose decision is a script of its own (floor-redis.ts with FLOOR_SCRIPT), beside redis-server
      const scriptFloorAt =
        (server: { url: string; child: { pid?: number } }) =>
        (connections: number, label: string, clients?: 'node') =>
          new Target(label, server.url, key(onRedis.key), [server.child.pid, redis.child.pid], {
            connections,
            count: evalshaCalls(stats),
            clients,
          })
      const oneLineAt = scriptFloorAt(floorOneLine)
      // a floor beside redis-server at 16 connections (Node CPU, then redis-server's)
      const onRedisFloor = (label: string, server: { url: string; child: { pid?: number } }) =>
        new Target(label, server.url, key(onRedis.key), [server.child.pid, redis.child.pid], {
          connections: CONNECTIONS,
          count: calls,
        })
      const bareAt = (connections: number, label: string, clients?: 'node') =>
        new Target(label, bare.url, json, [bare.child.pid], { connections, clients })
      const targets = [
        new Target('bare Fastify TLS', bare.url, json, [bare.child.pid], at(CONNECTIONS)),
        onRedisFloor('floor on Redis, a call per request: bare + key lookup + consume.lua + headers', floor),
        onRedisFloor('floor on Redis, batched', floorBatched),
        onRedisAt(CONNECTIONS),
        embeddedAt(CONNECTIONS),
        oneLineAt(CONNECTIONS, 'floor on Redis, a one-line script (batched)'),
        scriptFloorAt(floorIo)(CONNECTIONS, "floor on Redis, a script of a run's reads and writes (batched)"),
        onRedisFloor('contract floor on Redis (batched): + validation, metrics, log', contractOnRedis),
        new Target("contract floor on Redis in a gateway's process", shared.floorUrl, key(shared.key), [
          shared.child.pid,
        ]),
        new Target('gateway (Redis), beside it in that process', shared.url, key(shared.key), [
          shared.child.pid,
        ]),
        ...(before && base && redisBefore && statsBefore
          ? [
              new Target(
                `Anvil gateway (Redis) at ${base.commit.slice(0, 7)}`,
                before.url,
                key(before.key),
                [before.child.pid, redisBefore.child.pid],
                { connections: CONNECTIONS, count: evalshaCalls(statsBefore) },
              ),
            ]
          : []),
      ]
      const body = JSON.stringify({ input: 'hello world' })
      await alternate(targets, body)
      const beforeAt = (connections: number) =>
        before && base && redisBefore && statsBefore
          ? [
              new Target(
                `Anvil gateway (Redis) at ${base.commit.slice(0, 7)}, ${connections} connection${connections === 1 ? '' : 's'}`,
                before.url,
                key(before.key),
                [before.child.pid, redisBefore.child.pid],
                { connections, count: evalshaCalls(statsBefore) },
              ),
            ]
          : []
      const sweep = SWEEP.map((c) => [
        onRedisAt(c, `Anvil gateway (Redis), ${c} connection${c === 1 ? '' : 's'}`),
        embeddedAt(c, `Anvil gateway (embedded), ${c} connection${c === 1 ? '' : 's'}`),
        ...beforeAt(c),
      ])
      // one connection: the one-line floor and bare Fastify beside the gateway (issue 41's targets there)
      const single = [
        oneLineAt(1, 'floor on Redis, a one-line script, 1 connection'),
        bareAt(1, 'bare Fastify TLS, 1 connection'),
      ]
      // sixteen ordinary Node HTTPS clients instead of autocannon (fewer decisions share a turn)
      const ordinary = [
        new Target(
          'Anvil gateway (Redis), 16 Node HTTPS clients',
          onRedis.url,
          key(onRedis.key),
          [onRedis.child.pid, redis.child.pid],
          { connections: CONNECTIONS, count: calls, clients: 'node' },
        ),
        embeddedAt(CONNECTIONS, 'Anvil gateway (embedded), 16 Node HTTPS clients', 'node'),
        oneLineAt(CONNECTIONS, 'floor on Redis, a one-line script, 16 Node HTTPS clients', 'node'),
      ]
      await alternate([...sweep.flat(), ...single, ...ordinary], body)
      const [b, f, fb, r, e, one, io, contract, kp, gp] = targets as [
        Target,
        Target,
        Target,
        Target,
        Target,
        Target,
        Target,
        Target,
        Target,
        Target,
      ]
      const old = targets[10]
      const rows: ScenarioRow[] = [
        ...b.rows(['server']),
        ...f.rows(['server', 'redis-server']),
        ...fb.rows(['server', 'redis-server']),
        ...r.rows(['gateway', 'redis-server']),
        ...e.rows(['gateway']),
        ...one.rows(['server', 'redis-server']),
        ...io.rows(['server', 'redis-server']),
        ...contract.rows(['server', 'redis-server']),
        ...(old ? old.rows(['gateway', 'redis-server']) : []),
        { label: 'gateway (Redis) ÷ bare, Node CPU', value: r.cpu() / b.cpu(), unit: '× (target ≤ 1.4)' },
        {
          label: 'Redis share: (gateway Redis − embedded) ÷ bare, Node CPU',
          value: (r.cpu() - e.cpu()) / b.cpu(),
          unit: '×',
        },
        { label: 'redis-server CPU per request (gateway)', value: r.cpu(1), unit: 'µs (target ≤ 8)' },
        { label: 'p99 Redis ÷ p99 embedded', value: median(r.p99) / median(e.p99), unit: '× (target ≤ 1.5)' },
        { label: 'floor (a call per request) ÷ bare, Node CPU', value: f.cpu() / b.cpu(), unit: '×' },
        { label: 'floor (batched) ÷ bare, Node CPU', value: fb.cpu() / b.cpu(), unit: '×' },
        { label: 'gateway (Redis) ÷ floor (batched), Node CPU', value: r.cpu() / fb.cpu(), unit: '×' },
        {
          label: 'issue 41: gateway (Redis) ÷ contract floor (Redis), Node CPU',
          value: r.cpu() / contract.cpu(),
          unit: '× (target ≤ 1.1)',
        },
        ...processRows(contract, kp, gp, ' (Redis)'),
        { label: 'gateway (embedded) ÷ bare, Node CPU', value: e.cpu() / b.cpu(), unit: '× (target ≤ 1.35)' },
        { label: 'embedded ÷ Redis, Node CPU', value: e.cpu() / r.cpu(), unit: '× (target ≤ 1)' },
        { label: 'gateway (Redis) ÷ bare, req/s', value: median(r.rps) / median(b.rps), unit: '×' },
      ]
      if (old) {
        rows.push(
          { label: 'gateway (Redis) ÷ before, Node CPU', value: r.cpu() / old.cpu(), unit: '×' },
          { label: 'gateway (Redis) ÷ before, redis-server CPU', value: r.cpu(1) / old.cpu(1), unit: '×' },
          { label: 'gateway (Redis) ÷ before, p99', value: median(r.p99) / median(old.p99), unit: '×' },
        )
      }
      // autocannon's latencies are whole milliseconds: one connection's latency is read as 1 ÷ req/s
      const latency = (t: Target, connections: number) =>
        connections === 1
          ? `mean ${(1000 / median(t.rps)).toFixed(3)} ms`
          : `p50 ${median(t.p50).toFixed(2)} ms, p99 ${median(t.p99).toFixed(2)} ms`
      for (const [i, [sr, se, sb]] of sweep.entries()) {
        const c = SWEEP[i]!
        const ratio = (x: Target, y: Target) =>
          c === 1 ? median(y.rps) / median(x.rps) : median(x.p99) / median(y.p99)
        rows.push(...sr!.rows(['gateway', 'redis-server']), ...se!.rows(['gateway']), {
          label: `  latency Redis ÷ embedded (${c === 1 ? 'mean' : 'p99'})`,
          value: ratio(sr!, se!),
          unit: `× (${latency(sr!, c)} vs ${latency(se!, c)})`,
        })
        if (sb) {
          rows.push(...sb.rows(['gateway', 'redis-server']), {
            label: `  latency Redis ÷ before (${c === 1 ? 'mean' : 'p99'})`,
            value: ratio(sr!, sb),
            unit: `× (${latency(sr!, c)} vs ${latency(sb, c)})`,
          })
        }
      }
      // issue 41: redis-server CPU per request through the gateway, each beside the one-line floor of the
      // same load; at one connection the gateway's Node CPU on Redis against embedded, beside what the
      // floor's round trip would add to the embedded gateway ((one-line floor − bare) + embedded)
      const [single1, bare1] = single as [Target, Target]
      const [or, oe, oo] = ordinary as [Target, Target, Target]
      const [r1, e1] = sweep[0] as [Target, Target]
      rows.push(
        ...single1.rows(['server', 'redis-server']),
        ...bare1.rows(['server']),
        ...or.rows(['gateway', 'redis-server']),
        ...oe.rows(['gateway']),
        ...oo.rows(['server', 'redis-server']),
        {
          label: 'issue 41: redis-server µs/request, 16 autocannon connections: gateway | one-line floor',
          value: r.cpu(1),
          unit: `µs | ${one.cpu(1).toFixed(1)} µs (target ≤ 10)`,
        },
        // the same load against a script that decides nothing but reads and writes what the run's
        // decisions must; per call as well, since a faster server batches fewer decisions a call
        {
          label:
            "issue 41: redis-server µs/request, 16 autocannon connections: gateway | a run's reads and writes",
          value: r.cpu(1),
          unit: `µs | ${io.cpu(1).toFixed(1)} µs (target ≤ 10); per call ${(r.cpu(1) / median(r.counted)).toFixed(0)} | ${(io.cpu(1) / median(io.counted)).toFixed(0)} µs at ${(1 / median(r.counted)).toFixed(1)} | ${(1 / median(io.counted)).toFixed(1)} decisions`,
        },
        {
          label: 'issue 41: redis-server µs/request, 16 Node HTTPS clients: gateway | one-line floor',
          value: or.cpu(1),
          unit: `µs | ${oo.cpu(1).toFixed(1)} µs (target ≤ 10)`,
        },
        {
          label: 'issue 41: redis-server µs/request, 1 connection: gateway | one-line floor',
          value: r1.cpu(1),
          unit: `µs | ${single1.cpu(1).toFixed(1)} µs (target ≤ 30)`,
        },
        {
          label: 'issue 41: Node CPU Redis ÷ embedded, 1 connection: gateway | floor',
          value: r1.cpu() / e1.cpu(),
          unit: `× | ${((e1.cpu() + single1.cpu() - bare1.cpu()) / e1.cpu()).toFixed(2)}× (target ≤ 1.3)`,
        },
      )
      return { rows, ratio: b.cpu() / r.cpu() }
    } finally {
      await Promise.all(running.map((x) => x.stop()))
      stats.disconnect()
      statsBefore?.disconnect()
      await redis.stop()
      await redisBefore?.stop()
      await redisShared.stop()
      await base?.remove()
    }
  },
}
