// The thread's side of a pool's shared boards (src/exec/start-board.ts, progress-board.ts): one slot per
// task the pool accepts, written here without a message between threads, read by the submitter.

// Start board: epoch milliseconds as a BigInt64Array; 0 while the task waits for a thread.
export const NOT_STARTED = 0n

// Progress board: millionths in an Int32Array, so Atomics make each read and write whole; -1 while the
// task has reported nothing.
export const NO_PROGRESS = -1
export const PROGRESS_SCALE = 1_000_000
// below 1: a task is done when it answers, not when its operation says it has seen the last byte
const MAX_PROGRESS = PROGRESS_SCALE - 1

// The task in `slot` starts now: its compute budget counts from here.
export function markStarted(buffer: SharedArrayBuffer, slot: number, at: number): void {
  Atomics.store(new BigInt64Array(buffer), slot, BigInt(Math.max(1, Math.floor(at))))
}

// The task in `slot` has done `fraction` of its work. Never moves backwards.
export function reportProgress(buffer: SharedArrayBuffer, slot: number, fraction: number): void {
  if (!(fraction >= 0)) return
  const cells = new Int32Array(buffer)
  const value = Math.min(MAX_PROGRESS, Math.floor(fraction * PROGRESS_SCALE))
  if (value > Atomics.load(cells, slot)) Atomics.store(cells, slot, value)
}
