// What crosses the thread boundary to and from the op thread (src/exec/op-thread.ts), in a module of its own so the
// dispatcher takes these types without importing the thread entry (which imports the start board).

// input: plain data to run the op on; raw: the request body's JSON bytes, to be parsed, validated against
// the op's body schema and answered as JSON text (see src/lib/raw-json.ts)
export interface OpTask {
  op: string
  input?: unknown
  raw?: Uint8Array
  // this task's slot on the pool's start board (src/exec/start-board.ts)
  slot?: number
}

export type OpTaskResult =
  | { ok: true; value: unknown; startedAt: number; runMs: number }
  | {
      ok: false
      error: { code: string; message: string; details?: unknown }
      startedAt: number
      runMs: number
    }
