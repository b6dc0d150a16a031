import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const run = promisify(execFile)
const CHILD = new URL('./kept-shapes-child.ts', import.meta.url).pathname

// src/lib/kept-shapes.ts: a pool thread's full collection after a large task frees the hidden classes of the
// diff's own objects (its classes' instances, jsondiffpatch's contexts) once none lives, and with them the
// code V8 optimized for them: the next diff ran unoptimized and compiled them again. Measured here, the last
// of fourteen diffs: with the shapes kept, nothing is compiled again but placeExactNumbers' loop (called once
// a request, its on-stack code is cached weakly); with keepShape a no-op, 11 functions; without the kept
// contexts alone (delta.ts keepContextShapes), jsondiffpatch's Processor.process as well (3 runs of 3).
it("a diff's optimized code outlives the full collection after the diff before it", async () => {
  const { stdout } = await run(process.execPath, ['--trace-opt', CHILD], {
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  })
  const last = stdout.slice(stdout.indexOf('--- last diff'))
  const optimized = [
    ...last.matchAll(/completed optimizing \S+ <JSFunction (\S+) .*?\)(?: \(target \w+\))?( OSR)?\]/g),
  ]
  const compiledAgain = optimized.map(([, name, osr]) => `${name}${osr ?? ''}`)
  expect(compiledAgain.filter((name) => name !== 'placeExactNumbers OSR')).toEqual([])
})
