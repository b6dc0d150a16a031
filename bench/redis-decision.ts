import { Redis } from 'ioredis'
import { RedisStore } from '../src/store/redis/redis-store.ts'
import { startRedis } from '../test/helpers/redis-server.ts'
import { median } from './lib/load.ts'
import { cpuMicros } from './lib/proc-cpu.ts'
import type { Scenario, ScenarioRow } from './lib/scenario.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 20_000)
// decisions in flight at once: one client waiting for each answer, 16 (the small-request benches' load),
// and 64 (a busy gateway; also the batch cap)
const LEVELS = [1, 16, 64]
const TARGET_AT = 16
const TARGET_US = 8

interface Level {
  inFlight: number
  // redis-server CPU per decision (/proc): network, parsing, the script, replies
  server: number[]
  // the script's own µs per decision (INFO commandstats: EVALSHA time ÷ decisions)
  script: number[]
  // decisions per EVALSHA (the batches the store made)
  perCall: number[]
  // this process's CPU per decision: the store's client side (batching, ioredis, decoding)
  client: number[]
}

// What one limit decision costs, through the store's own consume() (key + workspace GCRA, both month
// quotas, usage counters; Redis TIME as in production), over 20 keys of 4 workspaces, at 1, 16 and 64
// decisions in flight. Each caller asks again as soon as it is answered, as the connections of a busy
// gateway do, so the decisions that come back together leave together in the next batch.
export const redisDecision: Scenario = {
  name: 'redis-decision',
  title: 'CPU per limit decision, redis-server and client, at 1, 16 and 64 in flight',
  target: {
    ratio: 1,
    text: `redis-server CPU ≤ ${TARGET_US} µs per decision at ${TARGET_AT} in flight (/proc), ratio = ${TARGET_US} ÷ measured`,
  },
  async run() {
    const redis = await startRedis()
    const raw = new Redis(redis.url)
    const store = await RedisStore.open({ target: { url: redis.url }, prefix: 'bench' })
    const levels: Level[] = LEVELS.map((inFlight) => ({
      inFlight,
      server: [],
      script: [],
      perCall: [],
      client: [],
    }))
    try {
      let n = 0
      const request = () => {
        const i = n++
        return store.consume({
          workspaceId: `ws_bench${i % 4}`,
          keyId: `key_bench${i % 20}`,
          keyRatePerSecond: 1_000_000,
          workspaceRatePerSecond: 1_000_000,
          monthlyQuota: 2_000_000_000,
          keyMonthlyQuota: i % 2 === 0 ? 1_000_000_000 : null,
        })
      }
      const burst = async (count: number, inFlight: number) => {
        let left = count
        const worker = async () => {
          while (left-- > 0) await request()
        }
        await Promise.all(Array.from({ length: inFlight }, worker))
      }
      await burst(2_000, 16)
      for (let r = 0; r < ROUNDS; r++) {
        for (const level of levels) {
          // fewer decisions one at a time: each waits a round trip
          const count = level.inFlight === 1 ? DECISIONS / 4 : DECISIONS
          await raw.config('RESETSTAT')
          const before = cpuMicros(redis.child.pid)
          const client = process.cpuUsage()
          await burst(count, level.inFlight)
          const used = process.cpuUsage(client)
          const after = cpuMicros(redis.child.pid)
          const stats = String(await raw.info('commandstats'))
          const m = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(stats)
          if (!m) throw new Error(`no evalsha in INFO commandstats: ${stats}`)
          level.script.push(Number(m[2]) / count)
          level.perCall.push(count / Number(m[1]))
          level.client.push((used.user + used.system) / count)
          if (before !== undefined && after !== undefined) level.server.push((after - before) / count)
        }
      }
    } finally {
      await store.close()
      raw.disconnect()
      await redis.stop()
    }
    const rows: ScenarioRow[] = []
    for (const l of levels) {
      rows.push(
        {
          label: `${l.inFlight} in flight: decisions per call`,
          value: median(l.perCall),
          unit: 'decisions/EVALSHA',
        },
        {
          label: '  script µs per decision (INFO commandstats)',
          value: median(l.script),
          unit: 'µs/decision',
        },
      )
      if (l.server.length)
        rows.push({
          label: '  redis-server CPU per decision (/proc)',
          value: median(l.server),
          unit: 'µs CPU/decision',
        })
      rows.push({
        label: '  client CPU per decision (store, ioredis)',
        value: median(l.client),
        unit: 'µs CPU/decision',
      })
    }
    const at = levels.find((l) => l.inFlight === TARGET_AT)!
    const measured = at.server.length ? median(at.server) : median(at.script)
    return { rows, ratio: TARGET_US / measured }
  },
}
