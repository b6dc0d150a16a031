// Child process for gc-limit.test.ts (a fresh heap of its own): a live heap the size of a booted gateway's,
// then collectAfterBoot, then what argv[2] says: 'grow' allocates a first request's worth (~8 MiB, a fifth
// of the heap) and prints how many full collections that cost.
import { constants, PerformanceObserver } from 'node:perf_hooks'
import { collectAfterBoot, growOldGenerationInWideSteps } from '../../src/lib/gc.ts'

const live: unknown[] = []
for (let i = 0; i < 300_000; i++) live.push({ a: i, b: `s${i}`, c: [i, i + 1] })
collectAfterBoot()
growOldGenerationInWideSteps()
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
