import { collector } from './v8-gc.ts'

// Streamed bodies and the event loop's heap. TLS hands a body over in 16 KiB records, each a Buffer of its
// own, and a streamed answer comes back from the thread as Buffers too: external memory, freed only when a
// collection finds the Buffer dead. Streaming allocates almost no JavaScript objects, so the young
// generation does not fill and no scavenge runs; the dead Buffers' bytes pile up until V8's external
// memory limit starts a full mark-compact of the whole heap, which is large on the gateway (the app, its
// ops and schemas: ~40 MB live). Measured on a 256 MiB raw sha256 upload (bench/stream.ts): 7 such
// collections, 8-12 ms of event-loop pause each and ~2 ms of GC-thread CPU per MiB, half the throughput
// of a bare Node server. A young-generation collection every EVERY bytes frees the records while they are
// young (~1 ms each, ~0.1 ms per MiB), and the full collections no longer happen.
const EVERY = 16 * 1024 * 1024

let since = 0

// Called with the bytes of every chunk a streamed body moves through the event loop, either way.
export function noteStreamedBytes(bytes: number): void {
  since += bytes
  if (since < EVERY) return
  since = 0
  collector()({ type: 'minor' })
}
