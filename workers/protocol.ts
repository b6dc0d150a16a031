// The one worker protocol: what crosses the thread boundary to and from the pool thread
// (workers/entry.ts), for synchronous requests and jobs alike. In a module of its own so the submitters
// (src/exec/) take these types without importing the thread entry.

import type { ErrorValue } from '../src/errors.ts'

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
  // how busy the pool is (src/exec/pools.ts): a thread gives its memory back only once the pool is quiet
  // (workers/memory.ts)
  busy: SharedArrayBuffer
}

// op: run the op on plain data; answered as the value, or, when `envelope` is set, as the whole success
//     envelope in UTF-8 bytes, serialized and encoded on the thread and transferred
// raw: the request body's JSON bytes, parsed, validated against the op's body schema, joined by `with`
//      (what the route adds: a path parameter), run, answered as the whole success envelope in UTF-8 bytes,
//      or as the op's raw bytes with `octets`, transferred (see src/lib/raw-json.ts)
// job.prepare: a submitted job body's bytes, parsed and validated (workers/jobs.ts): answers the operation
// job.run: a job's body, run: answers the result's JSON text, refused past maxResultBytes
export type Task =
  | { kind: 'op'; op: string; input: unknown; envelope?: boolean; slot?: number }
  | {
      kind: 'raw'
      op: string
      // the body as it was read: one buffer, or the pieces of a chunked body (src/lib/raw-json.ts)
      raw: Uint8Array[]
      with?: Record<string, unknown>
      octets?: boolean
      slot?: number
    }
  | { kind: 'job.prepare'; raw: Uint8Array; slot?: number }
  | { kind: 'job.run'; raw: Uint8Array; maxResultBytes: number; slot?: number }

export type TaskKind = Task['kind']

// an expected failure (an AppError on the thread), as a value
export type TaskError = ErrorValue

// value: plain data (op, job.prepare); json: JSON text (job.run); bytes: the response body to send as is
// (op with envelope, raw)
export type TaskReply =
  | { ok: true; value?: unknown; json?: string; bytes?: Uint8Array; startedAt: number; runMs: number }
  | { ok: false; error: TaskError; startedAt: number; runMs: number }

// A raw body streamed to a thread chunk by chunk over a MessagePort of its own (kind 'stream':
// src/exec/stream-run.ts on the main thread, stream-thread.ts on the pool thread).
export type { StreamTask, StreamTaskResult } from './stream-protocol.ts'
