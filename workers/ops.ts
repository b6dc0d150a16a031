import { performance } from 'node:perf_hooks'
import { isAppError } from '../src/errors.ts'
import { isOpName, OPERATIONS } from '../src/ops/registry.ts'

export interface OpTask {
  op: string
  input: unknown
}

export type OpTaskResult =
  | { ok: true; value: unknown; startedAt: number; runMs: number }
  | {
      ok: false
      error: { code: string; message: string; details?: unknown }
      startedAt: number
      runMs: number
    }

// Piscina entry: a pure function of a plain object. Expected failures come back as values (AppError does
// not survive the thread boundary); anything else is a bug and rejects.
export default async function runOperation(task: OpTask): Promise<OpTaskResult> {
  const startedAt = performance.timeOrigin + performance.now()
  if (!isOpName(task.op)) throw new Error(`unknown operation ${task.op}`)
  try {
    const value = await OPERATIONS[task.op].run(task.input as never)
    return { ok: true, value, startedAt, runMs: performance.timeOrigin + performance.now() - startedAt }
  } catch (err) {
    if (!isAppError(err)) throw err
    const error = { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) }
    return { ok: false, error, startedAt, runMs: performance.timeOrigin + performance.now() - startedAt }
  }
}
