import { NO_PROGRESS, PROGRESS_SCALE } from '../../workers/boards.ts'

// How far each running pooled task has got, shared with the pool's threads like the start board (one slot
// per task the pool accepts, the same slot numbers): an operation that can tell calls its progress
// callback at coarse steps, the thread writes the fraction into the task's slot (reportProgress,
// workers/boards.ts), and whoever waits for the task reads it when it likes (a job runner, four times a
// second) without a message between threads.
export class ProgressBoard {
  readonly buffer: SharedArrayBuffer
  #cells: Int32Array

  constructor(slots: number) {
    this.buffer = new SharedArrayBuffer(4 * slots)
    this.#cells = new Int32Array(this.buffer)
    this.#cells.fill(NO_PROGRESS)
  }

  // a slot given to a new task starts with nothing reported
  reset(slot: number): void {
    Atomics.store(this.#cells, slot, NO_PROGRESS)
  }

  // the fraction the task in `slot` last reported (0 ≤ f < 1), or undefined when it has reported none
  read(slot: number): number | undefined {
    const value = Atomics.load(this.#cells, slot)
    return value === NO_PROGRESS ? undefined : value / PROGRESS_SCALE
  }
}

// What a job runner holds while its task runs: reads the task's slot once the task has one, nothing after.
export class ProgressProbe {
  #read: (() => number | undefined) | undefined

  attach(read: () => number | undefined): void {
    this.#read = read
  }

  detach(): void {
    this.#read = undefined
  }

  value(): number | undefined {
    return this.#read?.()
  }
}
