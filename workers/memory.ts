import { getHeapStatistics } from 'node:v8'
import { workerData } from 'node:worker_threads'
import { collector } from '../src/lib/gc.ts'
import type { ThreadData } from './protocol.ts'

// A pool thread gives its memory back after a large task (issue 14). V8 grows a heap to what a task
// needed and, left alone, keeps it: after one 100k-item diff every thread that ran one held hundreds of
// MiB of committed heap, most of it garbage, until some later task happened to trigger a full collection.
// So after a task whose heap grew past GROWTH_BYTES the thread runs a full, memory-reducing collection
// once its pool has been quiet for QUIET_MS (a thread busy with the next task collects after that one
// instead).
// Measured (bench/diff-memory.ts): the collection gives the pages back to the OS, so the gateway's RSS
// returns to within idle + 64 MiB; recycling the thread would as well but costs a new thread's boot and
// warm-up (workers/warmup.ts) on the next request.

export const GROWTH_BYTES = 64 * 1024 * 1024

// the heap's committed size and the process's RSS after the last collection (or at boot): growth is
// measured from here. The heap size alone can miss a large task: collections during the task shrink the
// heap's committed size while the freed pages stay resident, so the process's RSS is checked too (a
// process-wide figure, so another thread's growth can trigger a collection here: a small heap's
// collection costs a few milliseconds, and the new baseline stops it from repeating).
let baseline = getHeapStatistics().total_heap_size
let baselineRss = process.memoryUsage.rss()
let timer: NodeJS.Timeout | undefined
let collections = 0
// the heap in use after the last full collection: what a task left above it is garbage the thread holds
let usedAfterCollection = getHeapStatistics().used_heap_size
let sweepPending = false
let sweeps = 0

// A full collection that also shrinks the young generation and releases free pages ('last-resort' is
// V8's memory-reducing flavour; a 'regular' major GC leaves the grown semi-spaces committed).
export function collectNow(): void {
  clearTimeout(timer)
  timer = undefined
  collector()({ type: 'major', execution: 'sync', flavor: 'last-resort' })
  collections++
  const heap = getHeapStatistics()
  baseline = heap.total_heap_size
  usedAfterCollection = heap.used_heap_size
  baselineRss = process.memoryUsage.rss()
}

// An ordinary full collection, run once the task's answer has gone (setImmediate: the reply is posted
// first), when the task left GROWTH_BYTES or more of its heap in use: a large task's data is garbage the
// moment it answers. Without it the next large tasks, arriving before the thread is quiet, piled theirs on
// top (the process-wide --heap-growing-percent=100 of src/lib/gc.ts lets a heap grow to twice what lived
// before V8 marks it): ten back-to-back 100k-item diffs grew the gateway by 10.3-10.6× the body, against
// 4.3-4.6× after the first. With it, 8.7-9.1×, and no slower (bench json-diff-100k). It marks what lives
// (little, once the task is done) and leaves the heap's size alone: giving memory back is still
// collectNow's, when the thread is quiet.
function sweepAfterAnswer(): void {
  sweepPending = false
  collector()({ type: 'major', execution: 'sync', flavor: 'regular' })
  sweeps++
  usedAfterCollection = getHeapStatistics().used_heap_size
}

// A task shorter than this cannot have grown the heap by GROWTH_BYTES (V8 allocates at most ~2 GB/s), so
// it skips the checks: they cost 10-50 µs (a heap statistics and an RSS read), a fifth of a pool hop.
const SHORT_MS = 20

// Requests on this thread's pool: bodies arriving, waiting for a place, or tasks running on its threads,
// and how many have come (the pool's admission keeps both, src/exec/admission.ts). The thread looks every
// QUIET_MS and collects at a look when the pool was empty at the last one and no request has come since:
// it has been empty all that time. Otherwise it waits, up to MAX_DEFER_MS after the task: the collection
// would give back the heap the next large task is about to grow again, on this thread or, as tasks
// alternate between threads, on this one next. A collection followed by a large task costs that task
// 30-40% more CPU (100k-item diffs about 2 s apart: 1.24-1.76 s of process CPU each against 0.90-0.92 s
// without the collection; the memory-reducing collection itself, then the parse regrowing a shrunk heap
// through a young generation shrunk too, scavenge after scavenge). So a pool is quiet only once nothing has
// come to it for a whole QUIET_MS: a look at one instant (before issue 41's fix) found a pool serving one
// client's back-to-back large requests empty in the moment between an answer and the next request. Two
// looks QUIET_MS apart must both fall in one empty stretch, so a client that sends its next request within
// QUIET_MS of an answer never sets it off; one that waits longer may, at some of its requests. Looks 2 s
// apart were tried: a paced client gained nothing measurable and the gateway's peak over back-to-back
// 100k diffs rose once past issue 41's 10× the body (12.9×), threads keeping grown heaps longer. The cap
// keeps issue 14's promise (memory back within 10 s) on a pool that never goes quiet; a quiet pool gives
// it back 1-2 s after its last task. None outside a pool (tests call the entry directly): the first look
// collects.
const QUIET_MS = 1_000
const MAX_DEFER_MS = 8_000
const shared = (workerData as Partial<ThreadData> | undefined)?.busy
const busy = shared ? new Int32Array(shared) : undefined
let armedAt = 0
// what the last look saw: the pool's count of requests come, and whether none was on it
let arrivals = 0
let emptyAtLastLook = false

// Whether the pool has been empty since the last look; remembers this look for the next.
function quietSinceLastLook(pool: Int32Array): boolean {
  const come = Atomics.load(pool, 1)
  const empty = Atomics.load(pool, 0) === 0
  const quiet = emptyAtLastLook && empty && come === arrivals
  arrivals = come
  emptyAtLastLook = empty
  return quiet
}

function collectWhenQuiet(): void {
  if (busy && !quietSinceLastLook(busy) && Date.now() - armedAt < MAX_DEFER_MS) {
    timer = setTimeout(collectWhenQuiet, QUIET_MS)
    timer.unref()
    return
  }
  collectNow()
}

// Called by the thread entry after every task with the task's running time.
export function afterTask(runMs = Number.POSITIVE_INFINITY): void {
  if (runMs < SHORT_MS) return
  const heap = getHeapStatistics()
  if (heap.used_heap_size - usedAfterCollection >= GROWTH_BYTES && !sweepPending) {
    sweepPending = true
    setImmediate(sweepAfterAnswer)
  }
  const grown =
    heap.total_heap_size - baseline >= GROWTH_BYTES || process.memoryUsage.rss() - baselineRss >= GROWTH_BYTES
  if (!grown) return
  clearTimeout(timer)
  armedAt = Date.now()
  // the first look: this task is still on the pool until the event loop has its answer
  if (busy) quietSinceLastLook(busy)
  timer = setTimeout(collectWhenQuiet, QUIET_MS)
  // a pending collection never keeps a thread (or a process shutting down) alive
  timer.unref()
}

// For tests and the benchmark: how many memory-returning collections this thread ran.
export function collectionsRun(): number {
  return collections
}

// For tests: how many ordinary collections ran after a large task's answer.
export function sweepsRun(): number {
  return sweeps
}
