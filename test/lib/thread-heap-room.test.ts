import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const run = promisify(execFile)
const CHILD = new URL('./thread-heap-room-child.ts', import.meta.url).pathname

async function majorsInLargeTask(room: 'room' | 'pools' | 'none'): Promise<unknown> {
  const { stdout } = await run(process.execPath, [CHILD, room], { timeout: 60_000 })
  return JSON.parse(stdout)
}

// src/lib/gc.ts roomForThreadHeaps: after the sweep that follows a large answer (~21 MB live), the next large
// task builds ~90 MB of live objects, as a 100k-item diff's parse does. With the room set before the thread
// is made, V8 starts no full collection during it; without, it starts one early, marking the half-built
// documents (24-53 ms of a 100k-item diff).
it("a pool thread's large task after a sweep runs no full collection of V8's own", async () => {
  expect(await majorsInLargeTask('room')).toEqual({ majors: 0, live: 150_000, built: 600_000 })
})

// createPools sets the room before it makes a thread: the warm thread it makes at boot runs the same task,
// as an op, clean (with the call after the pools are made, or without it, 1 full collection)
it('createPools gives the threads it makes the room, the warm ones made at boot included', async () => {
  expect(await majorsInLargeTask('pools')).toEqual({ majors: 0, live: 150_000, built: 600_000 })
})

// The check above can fail: without the room the same task runs one or more.
it('without the room, the same task runs a full collection', async () => {
  const result = (await majorsInLargeTask('none')) as { majors: number }
  expect(result.majors).toBeGreaterThan(0)
})
