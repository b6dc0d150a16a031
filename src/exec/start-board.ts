import { performance } from 'node:perf_hooks'
import { NOT_STARTED } from '../../workers/boards.ts'
import { METER_BUSY, METER_SINCE } from '../../workers/stream-protocol.ts'

// When each pooled task started running, shared with the pool's threads: a task's compute budget is
// counted from that moment, not from submission, so time spent queued or waiting for a thread to boot
// (after a budget kill Piscina starts a replacement, which loads its modules first) is never charged as
// compute. One slot per task the pool accepts; the thread writes its slot when it picks the task up
// (markStarted, workers/boards.ts).
export class StartBoard {
  readonly buffer: SharedArrayBuffer
  #starts: BigInt64Array
  #free: number[]

  constructor(slots: number) {
    this.buffer = new SharedArrayBuffer(8 * slots)
    this.#starts = new BigInt64Array(this.buffer)
    this.#free = Array.from({ length: slots }, (_, i) => slots - 1 - i)
  }

  // undefined when every slot is taken (the pool is at capacity)
  acquire(): number | undefined {
    const slot = this.#free.pop()
    if (slot !== undefined) Atomics.store(this.#starts, slot, NOT_STARTED)
    return slot
  }

  release(slot: number): void {
    this.#free.push(slot)
  }

  // epoch milliseconds when the task in `slot` started, or undefined while it waits
  startedAt(slot: number): number | undefined {
    const at = Atomics.load(this.#starts, slot)
    return at === NOT_STARTED ? undefined : Number(at)
  }
}

export const QUEUE_TIMEOUT = 'queue-timeout'
export const BUDGET_EXCEEDED = 'budget-exceeded'

// Aborts `controller` once the task has run for `budgetMs` (reason BUDGET_EXCEEDED), or has waited
// `maxWaitMs` without starting (reason QUEUE_TIMEOUT). Returns a function that stops watching.
export function watchBudget(
  board: StartBoard,
  slot: number,
  budgetMs: number,
  maxWaitMs: number,
  controller: AbortController,
): () => void {
  const submitted = Date.now()
  let timer: NodeJS.Timeout
  function check(): void {
    const now = Date.now()
    const started = board.startedAt(slot)
    if (started === undefined) {
      if (now - submitted >= maxWaitMs) controller.abort(QUEUE_TIMEOUT)
      else timer = setTimeout(check, Math.min(budgetMs, submitted + maxWaitMs - now))
      return
    }
    const left = started + budgetMs - now
    if (left <= 0) controller.abort(BUDGET_EXCEEDED)
    else timer = setTimeout(check, left)
  }
  timer = setTimeout(check, budgetMs)
  return () => clearTimeout(timer)
}

// A task over its budget is stopped by its own thread between two pieces (each bounded: one input chunk,
// or 64 KiB of output). The submitter kills the thread only when a single piece runs on, in wall time,
// past the CPU time left of the budget plus this grace (the budget itself, at least 50 ms): e.g. sort_keys
// printing one huge held object, or a thread stuck. Wall time runs faster than CPU time on a loaded
// machine, hence the grace.
const MIN_KILL_GRACE_MS = 50

const now = () => performance.timeOrigin + performance.now()

// The watch of a streamed body's task, whose thread meters its own CPU time (workers/stream.ts): time
// queued for a thread past `maxWaitMs` is overload (QUEUE_TIMEOUT); CPU time so far plus a piece still
// running past the budget and its grace kills the thread (BUDGET_EXCEEDED). Time the thread spends
// waiting for the network or for the reader costs nothing.
export function watchMeter(
  board: StartBoard,
  slot: number,
  budgetMs: number,
  maxWaitMs: number,
  controller: AbortController,
  meter: Float64Array,
): () => void {
  const submitted = now()
  let timer: NodeJS.Timeout
  function watch(): void {
    const at = now()
    if (board.startedAt(slot) === undefined) {
      if (at - submitted >= maxWaitMs) controller.abort(QUEUE_TIMEOUT)
      else timer = setTimeout(watch, Math.max(10, Math.min(budgetMs, submitted + maxWaitMs - at)))
      return
    }
    const since = meter[METER_SINCE]!
    const busy = meter[METER_BUSY]! + (since > 0 ? at - since : 0)
    const left = budgetMs + Math.max(MIN_KILL_GRACE_MS, budgetMs) - busy
    if (left <= 0) controller.abort(BUDGET_EXCEEDED)
    else timer = setTimeout(watch, Math.max(10, left))
  }
  timer = setTimeout(watch, Math.min(budgetMs, maxWaitMs))
  return () => clearTimeout(timer)
}
