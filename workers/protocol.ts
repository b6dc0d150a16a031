// The one worker protocol: what crosses the thread boundary to and from the pool thread
// (workers/entry.ts), for synchronous requests and jobs alike. In a module of its own so the submitters
// (src/exec/) take these types without importing the thread entry.

import type { ErrorValue } from '../src/errors.ts'

// The JavaScript of a thread's TypeScript modules (src/exec/thread-sources.ts): one shared buffer of UTF-8
// and where each module's text is in it, by file URL. Shared, not copied: a thread started later (a
// replacement for one killed at its budget) costs the event loop no copy of ~1 MB.
export interface ThreadSources {
  text: SharedArrayBuffer
  at: ReadonlyMap<string, readonly [start: number, end: number]>
}

// What a pool gives each of its threads at boot (Piscina's workerData, src/exec/pools.ts).
export interface ThreadData {
  // the pool's name (a metric label)
  pool: string
  // the pool's start board and progress board (workers/boards.ts): one slot per task it accepts
  starts: SharedArrayBuffer
  progress: SharedArrayBuffer
  // warm up before the first task (workers/warmup.ts), then add one to `warmed` (read by /readyz)
  warmUp: boolean
  warmed: SharedArrayBuffer
  // how busy the pool is, and how many requests have come to it (src/exec/admission.ts): a thread gives its
  // memory back only once the pool has been quiet for a while (workers/memory.ts)
  busy: SharedArrayBuffer
  // modules declaring ops beyond the built-in ones (src/ops/catalog.ts, catalogWith): a test's own ops
  opModules?: readonly string[]
  // the JavaScript of the TypeScript modules the thread loads (src/exec/thread-sources.ts), served by its
  // loader (workers/boot.mjs)
  sources?: ThreadSources
}

// op: an operation run on a pool thread: its input (parsed, for a body the event loop parsed) or the body's
//     bytes (parsed and validated here against the op's schema), joined by what the route adds (`with`),
//     answered as bytes to send as they are: the JSON success envelope, or the op's raw bytes (`octets`),
//     made and encoded here and transferred
// job.prepare: a submitted job body's bytes, parsed and validated (workers/jobs.ts): answers its operation
// job.run: a job's body, run: answers the result's JSON text, refused past maxResultBytes
export type Task =
  | {
      kind: 'op'
      op: string
      input?: unknown
      // the body as it was read: one buffer, or the pieces of a chunked body (src/lib/raw-json.ts)
      raw?: Uint8Array[]
      with?: Record<string, unknown> | undefined
      octets: boolean
      // the values of the op's caps for the workspace's plan (OpContext.caps)
      caps: Readonly<Record<string, number>>
      // the workspace (OpContext.tenant)
      tenant: string
      // for a body parsed here, the off-heap bytes its admission took (src/exec/submit.ts): a parsed request
      // whose op says it needs more is refused
      memoryBytes?: number
      slot?: number
    }
  | { kind: 'job.prepare'; raw: Uint8Array; slot?: number }
  | {
      kind: 'job.run'
      raw: Uint8Array
      maxResultBytes: number
      caps: Readonly<Record<string, number>>
      tenant: string
      slot?: number
    }

// an expected failure (an AppError on the thread), as a value
export type TaskError = ErrorValue

// bytes: the response body to send as is (op); value: plain data (job.prepare); json: JSON text (job.run)
export type TaskReply =
  | { ok: true; value?: unknown; json?: string; bytes?: Uint8Array; startedAt: number; runMs: number }
  | { ok: false; error: TaskError; startedAt: number; runMs: number }

// A raw body streamed to a thread chunk by chunk over a MessagePort of its own (kind 'stream':
// src/exec/stream-run.ts on the main thread, workers/stream.ts on the pool thread).
export type { StreamTask, StreamTaskResult } from './stream-protocol.ts'
