import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const run = promisify(execFile)
const CHILD = new URL('./gc-limit-child.ts', import.meta.url).pathname
const GATEWAY = new URL('../../src/main/gateway.ts', import.meta.url)

async function majorsAfter(collection: 'boot' | 'quiet', order: 'flag-first' | 'flag-last') {
  const { stdout } = await run(process.execPath, [CHILD, collection, order], { timeout: 30_000 })
  return (JSON.parse(stdout) as { majors: number }).majors
}

// src/lib/gc.ts growOldGenerationInWideSteps: a memory-reducing collection made without V8's growing flag
// leaves the old-generation limit a few MiB above what lives, so a first request's worth of allocation
// cost a full mark-compact (11 ms on the event loop during a fresh gateway's first 10k-item diff). With
// the flag set first, boot's collection and a pool thread's leave room as other collections do. Each case
// also runs with the flag set last, to show that this test sees the difference.
it("after boot's memory-reducing collection, a first request's worth of allocation runs no full collection", async () => {
  expect(await majorsAfter('boot', 'flag-first')).toBe(0)
  expect(await majorsAfter('boot', 'flag-last')).toBeGreaterThan(0)
})

it("after a pool thread's collectNow, a first task's worth of allocation runs no full collection", async () => {
  expect(await majorsAfter('quiet', 'flag-first')).toBe(0)
  expect(await majorsAfter('quiet', 'flag-last')).toBeGreaterThan(0)
})

// The gateway's own order: the flag before the runtime (and so its pools' threads) and before boot's
// collection.
it('the gateway sets the growing flag before it opens the runtime and before its boot collection', () => {
  const main = readFileSync(GATEWAY, 'utf8')
  const flag = main.indexOf('growOldGenerationInWideSteps()')
  expect(flag).toBeGreaterThan(0)
  expect(flag).toBeLessThan(main.indexOf('await openRuntime('))
  expect(flag).toBeLessThan(main.indexOf('collectAfterBoot()'))
})
