// Child process for thread-heap-room.test.ts (V8's flags are the process's): sets the pool threads' room
// (src/lib/gc.ts roomForThreadHeaps) when argv[2] is 'room', as createPools does, then makes a thread with
// the pools' limits (src/exec/pools.ts threadLimits) and prints what its large task cost.
import { Worker } from 'node:worker_threads'
import { growOldGenerationInWideSteps, roomForThreadHeaps } from '../../src/lib/gc.ts'

// the gateway sets it after boot, process-wide
growOldGenerationInWideSteps()
if (process.argv[2] === 'room') roomForThreadHeaps()
const thread = new Worker(new URL('./thread-heap-room-thread.ts', import.meta.url), {
  resourceLimits: { maxOldGenerationSizeMb: 2048, maxYoungGenerationSizeMb: 32 },
})
thread.once('message', async (result) => {
  process.stdout.write(`${JSON.stringify(result)}\n`)
  await thread.terminate()
})
