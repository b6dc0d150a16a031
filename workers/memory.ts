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
// first), when SWEEP_BYTES or more of the heap are in use past the last collection: a large task's data is
// garbage the moment it answers. Without it the next large tasks, arriving before the thread is quiet, piled
// theirs on top: ten back-to-back 100k-item diffs grew the gateway by 10.3-10.6× the body, against 4.3-4.6×
// after the first. It marks what lives (little, once the task is done) and leaves the heap's size alone:
// giving memory back is still collectNow's, when the thread is quiet. At 64 MiB it missed every other
// 100k-item diff, whose own collections had left ~48 MiB in use, and the next piled onto it (11-12× the
// body, issue 41); at 32 MiB it sweeps after each, and the thread's initial old space (src/lib/gc.ts
// roomForThreadHeaps) spares the next the full collection V8 would otherwise start early in its parse:
// 8.8× and 9.4× over idle, and 0.89× the time of a 100k-item diff swept at 64 MiB (bench json-diff-100k).
// Checked after every task, short ones too: reading the heap's figures costs ~0.6 µs, and garbage that short
// tasks promote would otherwise wait for V8, which the initial old space lets wait to 160 MiB.
export const SWEEP_BYTES = 32 * 1024 * 1024

function sweepAfterAnswer(): void {
  sweepPending = false
  collector()({ type: 'major', execution: 'sync', flavor: 'regular' })
  sweeps++
  usedAfterCollection = getHeapStatistics().used_heap_size
}

// A task shorter than this cannot have grown the heap by GROWTH_BYTES (V8 allocates at most ~2 GB/s), so
// it skips the check for memory to give back, whose RSS read made the two checks cost 10-50 µs, a fifth of
// a pool hop (the sweep's check, a heap statistics read, runs after every task).
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
  const heap = getHeapStatistics()
  if (heap.used_heap_size - usedAfterCollection >= SWEEP_BYTES && !sweepPending) {
    sweepPending = true
    setImmediate(sweepAfterAnswer)
  }
  if (runMs < SHORT_MS) return
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
