import { constants, PerformanceObserver } from 'node:perf_hooks'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

export type Gc = (options?: {
  type?: 'major' | 'minor'
  execution?: 'sync' | 'async'
  flavor?: 'regular' | 'last-resort'
}) => void

let gc: Gc | undefined

// V8's own `gc`, exposed only to a new context: the flag is V8-wide, but only contexts created after it
// see the function, so nothing else in the process gains a global `gc`. Used where the process knows
// better than V8's heuristics when memory is garbage: a pool thread after a large task
// (workers/memory.ts), the event loop while streamed bodies pass through it (below).
export function collector(): Gc {
  if (!gc) {
    setFlagsFromString('--expose-gc')
    gc = runInNewContext('gc') as Gc
  }
  return gc
}

// Booting allocates a lot that does not live on (modules compiled, schemas built, a certificate read or
// made), and V8 leaves the young generation at the size it grew to: 20-27 MiB of a gateway's resident
// memory at rest, where bare Fastify keeps 1 MiB. One memory-reducing collection once boot is done gives it
// back; a process calls it before it serves anything, when a pause of a few tens of ms holds nobody up.
export function collectAfterBoot(): void {
  collector()({ type: 'major', flavor: 'last-resort' })
  resetOldGenerationLimit()
}

// A memory-reducing collection ('last-resort') made before growOldGenerationInWideSteps (below) also leaves
// V8's old-generation limit at its tightest, a few MiB above what lives, so the next real work paid a
// mark-compact almost at once: a fresh gateway's first 10k-item diff ran an 11 ms one on the event loop,
// and its pool thread (which yields to the event loop) waited 9-16 ms to start the task, against 0.5 warm
// (1.7 with this). A regular full collection right after sets the limit as V8 sets it for any other, for
// a few ms while nothing waits; the limit is room, not use (RSS at rest unchanged: bench memory). Called
// after boot, and after a pool thread's warm-up (workers/warmup.ts), which may end before the gateway sets
// the flag (test/lib/gc-limit.test.ts: without it, a full collection within the first 12-27 MiB). Setting
// the flag first instead made both calls needless but cost the streaming neighbour's isolation
// (docs/dispatch.md), so the flag stays where it is.
export function resetOldGenerationLimit(): void {
  collector()({ type: 'major', execution: 'sync', flavor: 'regular' })
}

// How far the old generation may grow past what the last full collection left live before V8 starts the
// next one. V8 picks a factor of ~1.5 for a heap the size of the gateway's (~32 MB live under load), and
// starts incremental marking as soon as the room left under that limit is smaller than the young
// generation (16 MB under load): every 1-2 MB promoted. Under a free-plan flood of heavy diffs (bench/isolation.ts,
// requests waiting for the free pool outlive two scavenges) that was 10-11 mark-compacts in 8 s, each a
// 5-15 ms event-loop pause with marking steps of up to 12 ms, which every paid request behind them waited
// out (paid p99 2.7-2.9 ms, against 1.3-1.4 quiet). A factor of 2 leaves 2 in the same 8 s. A factor of 3
// left 1, but the flag is V8's and process-wide, so pool threads grow by it too: a raw 150 MiB Base64
// stream to a slow reader (test/http/v1/stream-pool.test.ts) then raised the gateway's RSS by 48-65 MiB,
// against 26 with V8's default and 35-39 with 2. Memory at rest does not change (the limit is room, not
// use, and V8's memory reducer still shrinks an idle heap). V8 reads the flag each time it computes a
// limit, so setting it before serving is enough.
export function growOldGenerationInWideSteps(): void {
  setFlagsFromString('--heap-growing-percent=100')
}

// Room for a pool thread's large task. A thread sweeps what a large task left once it has answered
// (workers/memory.ts sweepAfterAnswer), and that leaves V8's old-generation limit near three times what
// lives after it (~21 MB: a limit near 64 MB), so the next large task paid a full mark-compact early in its
// parse, marking its half-built documents (24-53 ms of a 100k-item diff). Sweeping only after the largest
// tasks avoided that but let the others pile their garbage onto the next one's: back to back, the gateway
// grew 11-12x the body over its idle, past issue 41's 10x. With an initial old space, V8 starts no full
// collection of its own until the old generation reaches that size, whatever the last one left (--trace-gc:
// after a sweep to 21.8 MB, a 100k-item diff grows the thread's heap to ~110 MB committed without one), so a
// thread sweeps after every large answer and the next task builds without being marked: one full collection
// a 100k-item diff, where there were two. It is room, not use: pages are taken as a task needs them, and the
// sweep and the idle collection give them back. V8 reads the flag when it makes an isolate: set before the
// pools make their threads, it reaches every pool thread (and one made to replace a thread) but not the
// event loop's heap, made before it. 160 MiB holds a 100k-item diff, within every tier's old generation
// (the free tier's is 512 MiB).
const THREAD_OLD_SPACE_MB = 160

export function roomForThreadHeaps(): void {
  setFlagsFromString(`--initial-old-space-size=${THREAD_OLD_SPACE_MB}`)
}

// Large bodies and the event loop's heap. TLS hands a body over in 16 KiB records, each a Buffer of its own,
// and large answers come back from the threads as Buffers too: external memory, freed only when a
// collection finds the Buffer dead. Moving bytes allocates almost no JavaScript objects, so the young
// generation does not fill and no scavenge runs; the dead Buffers' bytes pile up until V8's external
// memory limit starts a full mark-compact of the whole heap, which is large on the gateway (the app, its
// ops and schemas: ~40 MB live). Measured on a 256 MiB raw sha256 upload (bench/stream.ts): 7 such
// collections, 8-12 ms of event-loop pause each and ~2 ms of GC-thread CPU per MiB, half the throughput
// of a bare Node server. A young-generation collection every EVERY bytes frees the records while they are
// young (~0.35 ms each, ~0.1 ms per MiB), and the full collections no longer happen (a raw json/format
// minify streamed back: 0.61x the bare server's throughput without, 0.98-1.10x with). Every 4 MiB, not
// more: once collectAfterBoot has shrunk the young generation (to 8 MB; it does not grow back while
// bodies stream, since streaming allocates little), one every 8 MiB still let 12 full collections through
// a 320 MiB upload, one every 16 MiB 16 of them (336 against 680 MiB/s).
const EVERY = 4 * 1024 * 1024

let since = 0
// whether V8's incremental marking is under way, as far as the event loop can tell: its gc performance
// entries give an `incremental` one for a marking step run on this thread and a `major` one when the
// mark-compact that ends the marking is done. Marking done wholly on V8's helper threads (a loop that
// allocates little, as while streaming) runs no step here and is not seen.
let marking = false
let watching = false

function watchMarking(): void {
  if (watching) return
  watching = true
  new PerformanceObserver(function onGc(list) {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind
      if (kind === constants.NODE_PERFORMANCE_GC_INCREMENTAL) marking = true
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) marking = false
    }
  }).observe({ entryTypes: ['gc'] })
}

// Called with the bytes of every chunk a streamed body moves through the event loop, either way. While V8
// is seen marking, no collection is asked for: one asked for then finishes the marking at once, in one
// pause (seen: 32 ms, and 95-175 ms around single large buffers, which start marking by themselves and so
// are never counted here), where V8's own steps pause 4-12 ms; the mark-compact that ends it frees the
// chunks anyway. Marking this thread does not see is finished by the collection asked for: a 25-35 ms
// pause during 100-256 MiB Base64 streams (bench/stall.ts), the worst the stall bench measures; V8 would
// have finished it from a task a few ms later, so the pause moves rather than appears.
export function noteStreamedBytes(bytes: number): void {
  watchMarking()
  since += bytes
  if (since < EVERY) return
  since = 0
  if (!marking) collector()({ type: 'minor' })
}
