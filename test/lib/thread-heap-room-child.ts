// Child process for thread-heap-room.test.ts (V8's flags are the process's): sets the pool threads' room
// (src/lib/gc.ts roomForThreadHeaps) when argv[2] is 'room', then makes a thread with the pools' limits
// (src/exec/pools.ts threadLimits) and prints what its large task cost; when it is 'pools', runs the same
// task as an op (fixtures/heap-room.op.ts) on a warm thread createPools made itself, and prints that.
import { Worker } from 'node:worker_threads'
import { loadConfig } from '../../src/config.ts'
import { createPools } from '../../src/exec/pools.ts'
import { growOldGenerationInWideSteps, roomForThreadHeaps } from '../../src/lib/gc.ts'

const FIXTURE = new URL('./fixtures/heap-room.op.ts', import.meta.url).href

// the gateway sets it after boot, process-wide
growOldGenerationInWideSteps()
if (process.argv[2] === 'room') roomForThreadHeaps()
if (process.argv[2] === 'pools') {
  // warm: the pools make their threads now, as the gateway's do at boot; the task runs on the free
  // pool's warm thread
  const pools = createPools(
    loadConfig({ POOL_WARM: 'true', POOL_FREE_THREADS: '1', POOL_PAID_THREADS: '1' }).pools,
    [FIXTURE],
  )
  while (!pools.warm()) await new Promise((r) => setTimeout(r, 20))
  const task = { kind: 'op', op: 'test.heap_room', input: {}, octets: false, caps: {}, tenant: 't' }
  const { bytes } = (await pools.pick('ws_x', 'free').piscina.run(task)) as { bytes: Uint8Array }
  process.stdout.write(`${JSON.stringify(JSON.parse(Buffer.from(bytes).toString()).data)}\n`)
  await pools.close()
  process.exit(0)
}
const thread = new Worker(new URL('./thread-heap-room-thread.ts', import.meta.url), {
  resourceLimits: { maxOldGenerationSizeMb: 2048, maxYoungGenerationSizeMb: 32 },
})
thread.once('message', async (result) => {
  process.stdout.write(`${JSON.stringify(result)}\n`)
  await thread.terminate()
})
