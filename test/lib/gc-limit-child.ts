// Child process for gc-limit.test.ts (a fresh heap of its own): a live heap the size of a booted gateway's,
// then the memory-reducing collection argv[2] names, then V8's growing flag (the gateway sets it after boot's
// collection), then a first task's worth of allocation (~40 MiB); prints how many full collections that
// allocation cost.
//   boot:   collectAfterBoot (src/lib/gc.ts), as the gateway calls it before it listens
//   warmup: a pool thread's prepareThread (workers/warmup.ts: the ops warmed, then its collections), for a
//           thread whose warm-up ends before the gateway sets the flag
import { collectAfterBoot, growOldGenerationInWideSteps } from '../../src/lib/gc.ts'
import { catalogWith } from '../../src/ops/catalog.ts'
import { prepareThread } from '../../workers/warmup.ts'
import { majorCollections } from '../helpers/major-collections.ts'

const live: unknown[] = []
for (let i = 0; i < 300_000; i++) live.push({ a: i, b: `s${i}`, c: [i, i + 1] })
if (process.argv[2] === 'warmup') await prepareThread({ warmUp: true }, await catalogWith([]))
else collectAfterBoot()
growOldGenerationInWideSteps()
const MORE = 240_000
const majors = majorCollections()
const more: unknown[] = []
// ~40 MiB: well past the few MiB a memory-reducing collection leaves, well within what a regular one does
for (let i = 0; i < MORE; i++) more.push({ a: i, b: `t${i}`, c: [i] })
process.stdout.write(
  `${JSON.stringify({ majors: await majors.count(), live: live.length, more: more.length })}\n`,
)
