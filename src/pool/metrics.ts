import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import type { NamedPool } from './pools.ts'

export interface PoolMetrics {
  dispatch: Counter<'op' | 'mode'>
  wait: Histogram<'pool' | 'op'>
  run: Histogram<'pool' | 'op'>
  outcomes: Counter<'pool' | 'op' | 'outcome'>
  restarts: Counter<'pool'>
}

const BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30]

// Pool gauges are read from Piscina at scrape time; the rest is recorded by the dispatcher.
export function createPoolMetrics(registry: Registry, pools: () => NamedPool[]): PoolMetrics {
  new Gauge({
    name: 'anvil_pool_utilization',
    help: 'Share of the pool threads busy over their lifetime (Piscina utilization, 0-1)',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      for (const p of pools()) this.set({ pool: p.name }, p.piscina.utilization)
    },
  })
  new Gauge({
    name: 'anvil_pool_queue_depth',
    help: 'Tasks waiting for a thread',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      for (const p of pools()) this.set({ pool: p.name }, p.piscina.queueSize)
    },
  })
  new Gauge({
    name: 'anvil_pool_admission_waiting',
    help: 'Requests with a large body waiting, unread, for a place on the full pool (src/pool/admission.ts)',
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
  return {
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
  }
}
