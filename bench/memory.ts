import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { median } from './lib/load.ts'
import { type Running, startGateway, startNode, waitReady } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'

const MiB = 1024 * 1024
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
// threads per pool in the warm gateway: 2 + 2, so the per-thread figure is an average of four
const THREADS = 2
// each measured process collects its garbage on SIGUSR2 and prints its VmRSS (bench/lib/gc-on-signal.ts)
const MEASURED = { NODE_OPTIONS: '--expose-gc --import ./bench/lib/gc-on-signal.ts' }
const SETTLE_MS = 2_000

// Issue 18, memory at rest, in one run: (a) the gateway process without pool threads (POOL_WARM=false:
// no thread exists until a request needs one) against bare Fastify on the same TLS setup, target ≤ 1.5×;
// (b) the RSS each warm pool thread adds (a gateway with 2 + 2 warm threads, ready, minus (a), ÷ 4),
// target ≤ 28 MiB. Every figure is VmRSS after boot, a settle and a full GC; rounds alternate, medians.
export const memoryScenario: Scenario = {
  name: 'memory',
  title: 'Memory at rest: gateway without pool threads vs bare Fastify TLS; RSS per warm pool thread',
  target: {
    ratio: 1 / 1.5,
    text: 'bare Fastify ÷ gateway RSS ≥ 0.67 (gateway ≤ 1.5× bare); per thread ≤ 28 MiB',
  },
  async run() {
    const bare: number[] = []
    const cold: number[] = []
    const warm: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const gateway = await startGateway({ LOG_LEVEL: 'warn', POOL_WARM: 'false', ...MEASURED })
      try {
        cold.push(await restingRss(gateway))
        const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
        const tls = {
          TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'),
          TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem'),
        }
        const baseline = await startNode(
          'bench/baselines/bare-fastify.ts',
          { ...tls, ...MEASURED },
          /READY (https:\/\/\S+)/,
        )
        try {
          bare.push(await restingRss(baseline))
        } finally {
          await baseline.stop()
        }
      } finally {
        await gateway.stop()
      }
      const threads = String(THREADS)
      const pooled = await startGateway({
        LOG_LEVEL: 'warn',
        POOL_WARM: 'true',
        POOL_FREE_THREADS: threads,
        POOL_PAID_THREADS: threads,
        ...MEASURED,
      })
      try {
        const dataDir = /data dir:\s+(\S+)/.exec(pooled.output())![1]!
        await waitReady(pooled.url, readFileSync(join(dataDir, 'tls', 'cert.pem')))
        warm.push(await restingRss(pooled))
      } finally {
        await pooled.stop()
      }
    }
    const [b, c, w] = [median(bare), median(cold), median(warm)]
    const perThread = (w - c) / (2 * THREADS)
    process.stdout.write(
      `  gateway without threads ${(c / b).toFixed(2)}× bare (target ≤ 1.5×); per warm thread ` +
        `${(perThread / MiB).toFixed(1)} MiB — ${perThread <= 28 * MiB ? 'meets' : 'MISSES'} target (≤ 28 MiB)\n`,
    )
    return {
      rows: [
        { label: 'bare Fastify TLS, idle RSS', value: b / MiB, unit: 'MiB' },
        { label: 'gateway, no pool threads', value: c / MiB, unit: 'MiB' },
        { label: '  gateway ÷ bare', value: c / b, unit: '×' },
        { label: `gateway, ${2 * THREADS} warm threads`, value: w / MiB, unit: 'MiB' },
        { label: '  RSS per warm pool thread', value: perThread / MiB, unit: 'MiB' },
      ],
      ratio: b / c,
    }
  },
}

// VmRSS after the process has settled and collected its garbage in full
async function restingRss(server: Running): Promise<number> {
  await sleep(SETTLE_MS)
  const seen = server.output().match(/GC-RSS \d+ kB/g)?.length ?? 0
  server.child.kill('SIGUSR2')
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    const all = server.output().match(/GC-RSS (\d+) kB/g) ?? []
    if (all.length > seen) return Number(/(\d+)/.exec(all[all.length - 1]!)![1]) * 1024
    await sleep(50)
  }
  throw new Error('the process did not report its RSS after SIGUSR2')
}
