// How far each running pooled task has got, shared with the pool's threads like the start board (one slot
// per task the pool accepts, the same slot numbers): an operation that can tell calls its progress
// callback at coarse steps, the thread writes the fraction into the task's slot (workers/entry.ts),
// and whoever waits for the task reads it when it likes (a job runner, four times a second) without a
// message between threads. Millionths in an Int32Array, so Atomics make each read and write whole.
const NONE = -1
const SCALE = 1_000_000
// below 1: a task is done when it answers, not when its operation says it has seen the last byte
const MAX = SCALE - 1

export class ProgressBoard {
  readonly buffer: SharedArrayBuffer
  #cells: Int32Array

  constructor(slots: number) {
    this.buffer = new SharedArrayBuffer(4 * slots)
    this.#cells = new Int32Array(this.buffer)
    this.#cells.fill(NONE)
  }

  // a slot given to a new task starts with nothing reported
  reset(slot: number): void {
    Atomics.store(this.#cells, slot, NONE)
  }

  // the fraction the task in `slot` last reported (0 ≤ f < 1), or undefined when it has reported none
  read(slot: number): number | undefined {
    const value = Atomics.load(this.#cells, slot)
    return value === NONE ? undefined : value / SCALE
  }
}

// Thread side: the task in `slot` has done `fraction` of its work. Never moves backwards.
export function reportProgress(buffer: SharedArrayBuffer, slot: number, fraction: number): void {
  if (!(fraction >= 0)) return
  const cells = new Int32Array(buffer)
  const value = Math.min(MAX, Math.floor(fraction * SCALE))
  if (value > Atomics.load(cells, slot)) Atomics.store(cells, slot, value)
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
