import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import { cross, zeroCounter } from '../observability/zero.ts'
import type { Catalog } from '../ops/catalog.ts'
import type { NamedPool } from './pools.ts'

export interface PoolMetrics {
  dispatch: Counter<'op' | 'mode'>
  wait: Histogram<'pool' | 'op'>
  run: Histogram<'pool' | 'op'>
  outcomes: Counter<'pool' | 'op' | 'outcome'>
  restarts: Counter<'pool'>
  // thread time spent on tasks, counted when each task ends (completed, refused by the op, killed)
  busy: Counter<'pool'>
}

export const POOL_OUTCOMES = ['ok', 'error', 'timeout', 'oom', 'overloaded', 'crash'] as const
export type PoolOutcome = (typeof POOL_OUTCOMES)[number]

const BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30]

// Pool gauges are read from Piscina at scrape time; the rest is recorded by the dispatcher. The pools exist
// before this is called (src/runtime.ts): their outcome and restart series start at 0.
export function createPoolMetrics(
  registry: Registry,
  pools: () => NamedPool[],
  catalog: Catalog,
): PoolMetrics {
  new Gauge({
    name: 'anvil_pool_utilization_ratio',
    help:
      'Share of the pool threads busy over the pool lifetime (Piscina utilization, 0-1); ' +
      'rate(anvil_pool_busy_seconds_total) / anvil_pool_max_threads gives it over any window',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      for (const p of pools()) this.set({ pool: p.name }, p.piscina.utilization)
    },
  })
  new Gauge({
    name: 'anvil_pool_queue_depth',
    help: 'Tasks waiting for a thread (in their workspace lines, src/exec/fair-turns.ts, and in Piscina)',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      for (const p of pools()) this.set({ pool: p.name }, p.admission.turns.waiting + p.piscina.queueSize)
    },
  })
  new Gauge({
    name: 'anvil_pool_admission_waiting',
    help: 'Requests with a large body waiting, unread, for a place on the full pool (src/exec/admission.ts)',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      for (const p of pools()) this.set({ pool: p.name }, p.admission.waiting)
    },
  })
  new Gauge({
    name: 'anvil_pool_threads',
    help: 'Worker threads alive',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      for (const p of pools()) this.set({ pool: p.name }, p.piscina.threads.length)
    },
  })
  new Gauge({
    name: 'anvil_pool_max_threads',
    help: 'Configured maximum worker threads',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      for (const p of pools()) this.set({ pool: p.name }, p.piscina.maxThreads)
    },
  })
  const metrics: PoolMetrics = {
    dispatch: new Counter({
      name: 'anvil_dispatch_total',
      help: 'Operations run inline on the event loop or on a worker pool',
      labelNames: ['op', 'mode'],
      registers: [registry],
    }),
    wait: new Histogram({
      name: 'anvil_pool_wait_seconds',
      help: 'Time a task waited for a worker thread',
      labelNames: ['pool', 'op'],
      buckets: BUCKETS,
      registers: [registry],
    }),
    run: new Histogram({
      name: 'anvil_pool_run_seconds',
      help: 'Time a task ran on its worker thread',
      labelNames: ['pool', 'op'],
      buckets: BUCKETS,
      registers: [registry],
    }),
    outcomes: new Counter({
      name: 'anvil_pool_tasks_total',
      help: 'Pool tasks by outcome: ok, error (an expected 4xx), timeout, oom, overloaded, crash',
      labelNames: ['pool', 'op', 'outcome'],
      registers: [registry],
    }),
    restarts: new Counter({
      name: 'anvil_pool_worker_restarts_total',
      help: 'Worker threads that died (budget kill, out of memory, crash) and were replaced',
      labelNames: ['pool'],
      registers: [registry],
    }),
    busy: new Counter({
      name: 'anvil_pool_busy_seconds_total',
      help:
        'Thread time spent running tasks, counted as each task ends; rate() over max threads is the ' +
        'utilization over that window',
      labelNames: ['pool'],
      registers: [registry],
    }),
  }
  const names = pools().map((p) => p.name)
  // every operation can reach a pool: a body past its inline bound, or heavy whatever the size
  const pooled = catalog.ops.map((op) => op.name)
  zeroCounter(metrics.outcomes, cross({ pool: names, op: pooled, outcome: POOL_OUTCOMES }))
  zeroCounter(metrics.restarts, cross({ pool: names }))
  zeroCounter(metrics.busy, cross({ pool: names }))
  zeroCounter(metrics.dispatch, cross({ op: pooled, mode: ['inline'] }))
  zeroCounter(metrics.dispatch, cross({ op: pooled, mode: ['pool'] }))
  return metrics
}
