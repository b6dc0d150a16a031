import { Redis } from 'ioredis'
import { RedisStore } from '../src/store/redis/redis-store.ts'
import { startRedis } from '../test/helpers/redis-server.ts'
import { median } from './lib/load.ts'
import { cpuMicros } from './lib/proc-cpu.ts'
import type { Scenario } from './lib/scenario.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 20_000)
// requests in flight at once, as a busy gateway auto-pipelines them
const IN_FLIGHT = 64
const TARGET_US = 15

// What one limit decision costs redis-server: the store's own consume() (key + workspace GCRA, both month
// quotas, usage counters: one atomic call, Redis TIME as in production) run DECISIONS times, 64 in flight,
// over 20 keys of 4 workspaces. Two figures per round: the script's µs per call from INFO commandstats
// (what the target is stated in), and redis-server's whole CPU per decision from /proc (network,
// parsing and replies included: what a Redis core actually sustains).
export const redisDecision: Scenario = {
  name: 'redis-decision',
  title: 'redis-server CPU per limit decision (one atomic call)',
  target: {
    ratio: 1,
    text: `≤ ${TARGET_US} µs per decision (INFO commandstats), ratio = ${TARGET_US} ÷ measured`,
  },
  async run() {
    const redis = await startRedis()
    const raw = new Redis(redis.url)
    const store = await RedisStore.open({ target: { url: redis.url }, prefix: 'bench' })
    const script: number[] = []
    const process: number[] = []
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
      const burst = async (count: number) => {
        let left = count
        const worker = async () => {
          while (left-- > 0) await request()
        }
        await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
      }
      await burst(2_000)
      for (let r = 0; r < ROUNDS; r++) {
        await raw.config('RESETSTAT')
        const before = cpuMicros(redis.child.pid)
        await burst(DECISIONS)
        const after = cpuMicros(redis.child.pid)
        const stats = String(await raw.info('commandstats'))
        const m = /cmdstat_(?:evalsha|fcall):calls=(\d+),usec=(\d+)/.exec(stats)
        if (!m) throw new Error(`no evalsha/fcall in INFO commandstats: ${stats}`)
        script.push(Number(m[2]) / Number(m[1]))
        if (before !== undefined && after !== undefined) process.push((after - before) / DECISIONS)
      }
    } finally {
      await store.close()
      raw.disconnect()
      await redis.stop()
    }
    const perCall = median(script)
    return {
      rows: [
        { label: 'script µs per decision (INFO commandstats)', value: perCall, unit: 'µs/call' },
        ...(process.length
          ? [
              {
                label: 'redis-server CPU per decision (/proc)',
                value: median(process),
                unit: 'µs CPU/decision',
              },
            ]
          : []),
        { label: 'decisions per Redis core (script time)', value: 1e6 / perCall, unit: '/s' },
      ],
      ratio: TARGET_US / perCall,
    }
  },
}
