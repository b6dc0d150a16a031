import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const run = promisify(execFile)
const CHILD = new URL('./gc-limit-child.ts', import.meta.url).pathname

// src/lib/gc.ts resetOldGenerationLimit: the memory-reducing collection after boot leaves V8's
// old-generation limit a few MiB above what lives; without the regular collection after it, a first
// request's worth of allocation cost a full mark-compact on the event loop (11 ms on a fresh gateway's
// first 10k-item diff).
it("after collectAfterBoot, a first request's worth of allocation runs no full collection", async () => {
  const { stdout } = await run(process.execPath, [CHILD], { timeout: 30_000 })
  expect(JSON.parse(stdout)).toEqual({ majors: 0, live: 300_000, more: 50_000 })
})
