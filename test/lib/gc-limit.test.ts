import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const run = promisify(execFile)
const CHILD = new URL('./gc-limit-child.ts', import.meta.url).pathname

async function afterCollection(which: 'boot' | 'warmup'): Promise<unknown> {
  const { stdout } = await run(process.execPath, [CHILD, which], { timeout: 30_000 })
  return JSON.parse(stdout)
}

// src/lib/gc.ts resetOldGenerationLimit: a memory-reducing collection made before the gateway sets V8's
// growing flag leaves the old-generation limit a few MiB above what lives; without the regular collection
// after it, the first work cost a full mark-compact (11 ms on the event loop during a fresh gateway's first
// 10k-item diff). Measured for the warm-up (three runs): without it, a full collection within the first
// 12-27 MiB allocated; with it, none within 72. Each case allocates 40.
it("after collectAfterBoot, a first request's worth of allocation runs no full collection", async () => {
  expect(await afterCollection('boot')).toEqual({ majors: 0, live: 300_000, more: 240_000 })
})

// The same after a pool thread's warm-up (workers/warmup.ts prepareThread), for a thread whose warm-up ends
// before the gateway sets the flag (threads start with the runtime; the flag is set once the apps are
// ready, after boot's collection: which comes first varies).
it("after a pool thread's warm-up, a first task's worth of allocation runs no full collection", async () => {
  expect(await afterCollection('warmup')).toEqual({ majors: 0, live: 300_000, more: 240_000 })
})
