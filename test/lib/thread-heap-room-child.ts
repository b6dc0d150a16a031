// Child process for thread-heap-room.test.ts (V8's flags are the process's): sets the pool threads' room
// (src/lib/gc.ts roomForThreadHeaps) when argv[2] is 'room'; when it is 'pools', lets createPools set it
// (pools that make no thread, closed at once: the flag stays set for the process); then makes a thread with
// the pools' limits (src/exec/pools.ts threadLimits) and prints what its large task cost.
import { Worker } from 'node:worker_threads'
import { createPools } from '../../src/exec/pools.ts'
import { growOldGenerationInWideSteps, roomForThreadHeaps } from '../../src/lib/gc.ts'

// the gateway sets it after boot, process-wide
growOldGenerationInWideSteps()
if (process.argv[2] === 'room') roomForThreadHeaps()
if (process.argv[2] === 'pools') {
  // warm: false, so no thread is made before this child's own
  await createPools({
    free: { threads: 1, queue: 1, memoryMb: 256, offHeapMb: 256 },
    paid: { threads: 1, queue: 1, memoryMb: 256, offHeapMb: 256 },
    dedicated: {},
    warm: false,
    admissionWaitMs: 0,
  } as Parameters<typeof createPools>[0]).close()
}
const thread = new Worker(new URL('./thread-heap-room-thread.ts', import.meta.url), {
  resourceLimits: { maxOldGenerationSizeMb: 2048, maxYoungGenerationSizeMb: 32 },
})
thread.once('message', async (result) => {
  process.stdout.write(`${JSON.stringify(result)}\n`)
  await thread.terminate()
})
