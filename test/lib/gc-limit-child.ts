// Child process for gc-limit.test.ts (a fresh heap of its own), in the gateway's order: the GC flag first
// (growOldGenerationInWideSteps, unless argv[3] is 'flag-last'), a live heap the size of a booted
// gateway's, then the memory-reducing collection argv[2] names, then a first request's worth of allocation
// (~8 MiB, a fifth of the heap); prints how many full collections that allocation cost.
//   boot:  collectAfterBoot (src/lib/gc.ts), as the gateway calls it before it listens
//   quiet: a large task's garbage, then collectNow (workers/memory.ts), as a pool thread calls it after its
//          warm-up and once quiet after a large task
import { constants, PerformanceObserver } from 'node:perf_hooks'
import { collectAfterBoot, growOldGenerationInWideSteps } from '../../src/lib/gc.ts'
import { collectNow } from '../../workers/memory.ts'

const flagLast = process.argv[3] === 'flag-last'
if (!flagLast) growOldGenerationInWideSteps()
const live: unknown[] = []
for (let i = 0; i < 300_000; i++) live.push({ a: i, b: `s${i}`, c: [i, i + 1] })
if (process.argv[2] === 'quiet') {
  let task: unknown[] | undefined = []
  for (let i = 0; i < 1_000_000; i++) task.push({ a: i, b: `t${i}`, c: [i] })
  task = undefined
  collectNow()
} else collectAfterBoot()
if (flagLast) growOldGenerationInWideSteps()
let majors = 0
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++
}).observe({ entryTypes: ['gc'] })
const more: unknown[] = []
for (let i = 0; i < 50_000; i++) more.push({ a: i, b: `t${i}`, c: [i] })
// gc entries are delivered on a later turn
await new Promise((resolve) => setTimeout(resolve, 50))
process.stdout.write(`${JSON.stringify({ majors, live: live.length, more: more.length })}\n`)
