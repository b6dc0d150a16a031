import { performance } from 'node:perf_hooks'
import { Registry } from 'prom-client'
import { createDispatcher } from '../src/exec/dispatch.ts'
import { createPoolMetrics } from '../src/exec/metrics.ts'
import { createPools } from '../src/exec/pools.ts'
import { DEFAULT_PLANS } from '../src/limits/plans.ts'
import { CATALOG } from '../src/ops/catalog.ts'
import type { AnyOp } from '../src/ops/define.ts'
import type { Scenario } from './lib/scenario.ts'

const KiB = 1024
const ROUNDS = Number(process.env.BENCH_DISPATCH_OPS ?? 400)

interface Case {
  op: AnyOp
  bytes: number
  input: unknown
}

const op = (name: string) => CATALOG.named(name)!

function jsonDoc(bytes: number): string {
  const items: unknown[] = []
  let size = 2
  for (let i = 0; size < bytes; i++) {
    const item = { id: i, name: `item ${i}`, ok: i % 2 === 0 }
    size += JSON.stringify(item).length + 1
    items.push(item)
  }
  return JSON.stringify(items)
}

const CASES: Case[] = [1, 16, 64, 256, 1024].flatMap((k) => [
  { op: op('hash'), bytes: k * KiB, input: { algorithm: 'sha256', input: 'x'.repeat(k * KiB) } },
  { op: op('json.format'), bytes: k * KiB, input: { input: jsonDoc(k * KiB), mode: 'pretty' } },
])

// Throughput of the same operation run inline vs forced through a pool of (cores) threads with as many tasks
// in flight: below the crossover the ~40 µs hop and the copies cost more than the work, above it the pool
// wins (and keeps the event loop free).
export const dispatch: Scenario = {
  name: 'dispatch',
  title: 'Dispatch: inline vs forced through the worker pool, by operation and size',
  target: {
    ratio: 1,
    text: 'informational: where pool throughput passes inline (ratio = pool ÷ inline at 1 MiB format)',
  },
  async run() {
    const threads = 2
    const pools = createPools({
      free: { threads, queue: 1024, memoryMb: 512, offHeapMb: 256 },
      paid: { threads, queue: 1024, memoryMb: 512, offHeapMb: 256 },
      dedicated: {},
      warm: true,
      admissionWaitMs: 0,
    })
    const metrics = createPoolMetrics(new Registry(), () => pools.all(), CATALOG)
    const dispatcher = createDispatcher(pools, metrics)
    const limits = { ...DEFAULT_PLANS.business }
    const rows = []
    let ratio = 0
    try {
      for (const c of CASES) {
        const reps = Math.max(20, Math.round(ROUNDS / Math.max(1, c.bytes / (16 * KiB))))
        // the decision forced each way (src/exec/decide.ts): the same op, inline and on the pool
        const decided = {
          op: c.op,
          heavyCheck: false,
          rawBody: false,
          declaredBytes: c.bytes,
          reservation: null,
        }
        const inlineCtx = {
          workspaceId: 'ws_bench',
          limits,
          execution: { ...decided, mode: 'inline' as const },
        }
        const poolCtx = { workspaceId: 'ws_bench', limits, execution: { ...decided, mode: 'pool' as const } }
        const work = { op: c.op, input: c.input, octets: false }
        await dispatcher.run(work, poolCtx)
        let t0 = performance.now()
        for (let i = 0; i < reps; i++) await dispatcher.run(work, inlineCtx)
        const inlineOps = reps / ((performance.now() - t0) / 1000)
        t0 = performance.now()
        await Promise.all(Array.from({ length: reps }, () => dispatcher.run(work, poolCtx)))
        const poolOps = reps / ((performance.now() - t0) / 1000)
        rows.push({ label: `${c.op.name} ${c.bytes / KiB} KiB inline`, value: inlineOps, unit: 'ops/s' })
        rows.push({
          label: `${c.op.name} ${c.bytes / KiB} KiB pool (${(poolOps / inlineOps).toFixed(2)}×)`,
          value: poolOps,
          unit: 'ops/s',
        })
        if (c.op.name === 'json.format' && c.bytes === 1024 * KiB) ratio = poolOps / inlineOps
      }
    } finally {
      await pools.close()
    }
    return { rows, ratio }
  },
}
