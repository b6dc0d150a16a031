import { Worker } from 'node:worker_threads'

// The in-process baseline of the password throughput benches: `threads` worker threads of this process,
// each computing the same hash as the gateway's request does, back to back, for `seconds`: what the
// machine does with no HTTP, TLS, JSON, admission or envelope in the way. argon2 through node:crypto's
// argon2Sync (what src/ops/password runs), bcrypt through @node-rs/bcrypt's hashSync.
export type BaselineHash =
  | { algorithm: 'argon2id'; memoryKib: number; iterations: number; parallelism: number }
  | { algorithm: 'bcrypt'; cost: number }

const THREAD = new URL('./password-baseline-thread.ts', import.meta.url)

export async function baselineHashesPerSecond(
  hash: BaselineHash,
  threads: number,
  seconds: number,
): Promise<number> {
  const until = Date.now() + seconds * 1000
  const counts = await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<number>((resolve, reject) => {
          const worker = new Worker(THREAD, { workerData: { hash, until } })
          worker.once('message', (done: number) => {
            resolve(done)
            void worker.terminate()
          })
          worker.once('error', reject)
        }),
    ),
  )
  return counts.reduce((a, b) => a + b, 0) / seconds
}
