// The thread of thread-heap-room-child.ts: posts what the large task after a sweep cost it.
import { parentPort } from 'node:worker_threads'
import { largeTaskAfterSweep } from './heap-room-task.ts'

parentPort!.postMessage(await largeTaskAfterSweep())
