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
// (src/exec/thread-memory.ts), the event loop while streamed bodies pass through it (below).
export function collector(): Gc {
  if (!gc) {
    setFlagsFromString('--expose-gc')
    gc = runInNewContext('gc') as Gc
  }
  return gc
}

// Large bodies and the event loop's heap. TLS hands a body over in 16 KiB records, each a Buffer of its own,
// and large answers come back from the threads as Buffers too: external memory, freed only when a
// collection finds the Buffer dead. Moving bytes allocates almost no JavaScript objects, so the young
// generation does not fill and no scavenge runs; the dead Buffers' bytes pile up until V8's external
// memory limit starts a full mark-compact of the whole heap, which is large on the gateway (the app, its
// ops and schemas: ~40 MB live). Measured on a 256 MiB raw sha256 upload (bench/stream.ts): 7 such
// collections, 8-12 ms of event-loop pause each and ~2 ms of GC-thread CPU per MiB, half the throughput
// of a bare Node server. A young-generation collection every EVERY bytes frees the records while they are
// young (~1 ms each, ~0.1 ms per MiB), and the full collections no longer happen. Only for bodies that
// arrive or leave in small pieces (streams): a single large Buffer starts V8's incremental marking by
// itself, and a collection asked for while marking runs finishes the marking at once, in one pause (seen:
// 95-175 ms on a 20 MiB url.parse), instead of in V8's own small steps.
const EVERY = 16 * 1024 * 1024

let since = 0

// Called with the bytes of every chunk a streamed body moves through the event loop, either way.
export function noteStreamedBytes(bytes: number): void {
  since += bytes
  if (since < EVERY) return
  since = 0
  collector()({ type: 'minor' })
}
