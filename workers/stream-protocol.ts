// What crosses the thread boundary for a streamed body (docs/dispatch.md, "Streaming on the pool"): the
// task handed to Piscina once, and the messages both sides exchange on the task's own MessageChannel while
// the body arrives. Shared by the main side (src/exec/stream-run.ts) and the thread (workers/stream.ts).
import type { MessagePort } from 'node:worker_threads'
import type { ErrorValue } from '../src/errors.ts'

// The streamed op a body is fed through (OpDescriptor.stream, src/ops/define.ts): its name, the options its
// route made of the query (plain data), whether the answer is its raw output (else the thread holds the output
// and answers the whole JSON success envelope, as one piece of UTF-8 bytes), and its caps.
export interface StreamJob {
  op: string
  options: unknown
  octets: boolean
  caps: Readonly<Record<string, number>>
}

// What the thread knows once the body has ended, beside its output: the input bytes it processed.
export interface StreamResult {
  bytes: number
}

export interface StreamTask {
  kind: 'stream'
  job: StreamJob
  // the thread's end of this task's channel (moved in the task's transferList)
  port: MessagePort
  // the input ring: the main side copies the body's bytes in, the thread reads them in place and
  // acknowledges them, which frees their room (INPUT_WINDOW bytes; no allocation per chunk on either side)
  ring: SharedArrayBuffer
  // the plan's compute budget: the thread's CPU time processing chunks, never time waiting for bytes
  budgetMs: number
  // Float64Array over it, written by the thread: [CPU ms so far, epoch ms the current piece started
  // (0 while idle), input bytes processed]. The main side reads it to kill a task stuck inside one piece.
  meter: SharedArrayBuffer
  // this task's slot on the pool's start board (src/exec/start-board.ts)
  slot?: number
}

export const METER_BUSY = 0
export const METER_SINCE = 1
export const METER_BYTES = 2
export const METER_SLOTS = 3

// The task's reply when it ends: done (or cancelled: the client went away), refused with the op's own error
// (bad input, a limit), as a value, or stopped at the compute budget.
export type StreamTaskResult =
  | {
      ok: true
      startedAt: number
      // CPU time processing chunks (ms)
      runMs: number
      cancelled: boolean
    }
  | { ok: false; error: ErrorValue; startedAt: number; runMs: number }
  // stopped by the thread at the compute budget, between two pieces
  | { ok: false; overBudget: true; bytesProcessed: number; startedAt: number; runMs: number }

// main → thread
export type ToThread =
  // the body's bytes up to this offset (counted from the body's start) are in the ring
  | { t: 'data'; end: number }
  | { t: 'end' }
  // output bytes the main side has handed on: they no longer count against the thread's window
  | { t: 'credit'; bytes: number }
  // the client is gone: end the task now
  | { t: 'cancel' }

// thread → main
export type FromThread =
  // input bytes processed: they no longer count against the main side's window
  { t: 'ack'; bytes: number } | { t: 'out'; chunk: Uint8Array } | { t: 'done'; result: StreamResult }

const MiB = 1024 * 1024

// Bytes in flight each way: input in the ring but not yet processed by the thread (the ring's size), and
// output made but not yet taken by the response. Past it the request is paused (input) or the thread waits
// (output), so a slow thread slows the upload and a slow reader slows the thread, at flat memory.
export const INPUT_WINDOW = 4 * MiB
export const OUTPUT_WINDOW = 4 * MiB

export function isStreamTask(task: object): task is StreamTask {
  return (task as { kind?: unknown }).kind === 'stream'
}
