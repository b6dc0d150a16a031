import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { documents, post, statusKb } from './json-diff.ts'
import { median } from './lib/load.ts'
import { startGateway, waitReady } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'

const MiB = 1024 * 1024
const ITEMS = Number(process.env.BENCH_DIFF_MEMORY_ITEMS ?? 100_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SETTLE_MS = 10_000
const ALLOWANCE = 64 * MiB

// Issue 14: after a 100k-item diff the gateway's RSS (all threads) is back within idle + 64 MiB in 10 s.
// A fresh warm gateway (one thread per pool, so every diff lands on the same paid thread) is measured at
// rest, then each round posts the diff and reads VmRSS every 100 ms until it is under idle + 64 MiB or
// 10 s have passed. The ratio is (idle + 64 MiB) ÷ the RSS reached: ≥ 1 when memory came back in time.
export const diffMemoryScenario: Scenario = {
  name: 'diff-memory',
  title: `Memory given back: gateway RSS after a ${ITEMS / 1000}k-item diff vs its idle RSS + 64 MiB`,
  target: { ratio: 1, text: `RSS back within idle + 64 MiB within ${SETTLE_MS / 1000} s` },
  async run() {
    const { left, right } = documents(ITEMS)
    const body = JSON.stringify({
      left: { items: left },
      right: { items: right },
      array_key: 'id',
      output: 'both',
    })
    const gateway = await startGateway({
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      POOL_FREE_THREADS: '1',
      POOL_PAID_THREADS: '1',
      PLANS: JSON.stringify({ business: { max_json_bytes: 64 * MiB, compute_budget_ms: 60_000 } }),
    })
    try {
      const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
      const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'))
      const pid = gateway.child.pid!
      await waitReady(gateway.url, ca)
      await sleep(1_000)
      const idle = statusKb(pid, 'VmRSS')
      const peaks: number[] = []
      const settled: number[] = []
      const settleMs: number[] = []
      for (let round = 0; round < ROUNDS; round++) {
        const res = await post(`${gateway.url}/v1/json/diff`, gateway.key, ca, body)
        if (res.status !== 200)
          throw new Error(`POST /v1/json/diff answered ${res.status}: ${res.text.slice(0, 300)}`)
        peaks.push(statusKb(pid, 'VmHWM'))
        const started = Date.now()
        let rss = statusKb(pid, 'VmRSS')
        while (rss > idle + ALLOWANCE && Date.now() - started < SETTLE_MS) {
          await sleep(100)
          rss = statusKb(pid, 'VmRSS')
        }
        settled.push(rss)
        settleMs.push(Date.now() - started)
      }
      const worst = Math.max(...settled)
      return {
        rows: [
          { label: 'idle RSS (warm, 1+1 threads)', value: idle / MiB, unit: 'MiB' },
          { label: 'peak RSS (VmHWM)', value: Math.max(...peaks) / MiB, unit: 'MiB' },
          { label: 'RSS after the diff, worst round', value: worst / MiB, unit: 'MiB' },
          { label: '  over idle', value: (worst - idle) / MiB, unit: 'MiB' },
          { label: '  time to settle, median', value: median(settleMs), unit: 'ms' },
          ...settled.map((rss, i) => ({
            label: `  round ${i + 1}, over idle`,
            value: (rss - idle) / MiB,
            unit: 'MiB',
          })),
        ],
        ratio: (idle + ALLOWANCE) / worst,
      }
    } finally {
      await gateway.stop()
    }
  },
}
