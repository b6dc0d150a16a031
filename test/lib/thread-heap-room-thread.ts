// The thread of thread-heap-room-child.ts: a pool thread's heap after a large answer's sweep (~21 MB live,
// workers/memory.ts sweepAfterAnswer), then a large task that builds ~90 MB of live objects; posts how many
// full collections V8 ran during it.
import { constants, PerformanceObserver } from 'node:perf_hooks'
import { parentPort } from 'node:worker_threads'
import { collector } from '../../src/lib/gc.ts'

const live: unknown[] = []
for (let i = 0; i < 150_000; i++) live.push({ a: i, b: `s${i}`, c: [i, i + 1] })
collector()({ type: 'major', execution: 'sync', flavor: 'regular' })
let majors = 0
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++
}).observe({ entryTypes: ['gc'] })
const built: unknown[] = []
for (let i = 0; i < 600_000; i++) built.push({ a: i, b: `t${i}`, c: [i] })
// gc entries are delivered on a later turn
await new Promise((resolve) => setTimeout(resolve, 50))
parentPort!.postMessage({ majors, live: live.length, built: built.length })
