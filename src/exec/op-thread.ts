import { performance } from 'node:perf_hooks'
import { workerData } from 'piscina'
import { isAppError } from '../errors.ts'
import { parseAndValidate } from '../lib/raw-json.ts'
import { parseJsonExact } from '../ops/json/number.ts'
import { exactNumbers, isOpName, OPERATIONS } from '../ops/registry.ts'
import { markStarted } from './start-board.ts'
import type { OpTask, OpTaskResult } from './task-types.ts'
import { idleSchedulingForThisThread } from './thread-policy.ts'

// the pool asks for it (free tier): this thread yields the CPU to everything else the moment it is wanted
if ((workerData as { idle?: boolean } | undefined)?.idle) idleSchedulingForThisThread()

// Piscina entry: a pure function of a plain object. Expected failures come back as values (AppError does
// not survive the thread boundary); anything else is a bug and rejects.
export default async function runOperation(task: OpTask): Promise<OpTaskResult> {
  const startedAt = performance.timeOrigin + performance.now()
  const board = (workerData as { starts?: SharedArrayBuffer } | undefined)?.starts
  if (board && task.slot !== undefined) markStarted(board, task.slot, startedAt)
  const elapsed = () => performance.timeOrigin + performance.now() - startedAt
  if (!isOpName(task.op)) throw new Error(`unknown operation ${task.op}`)
  const spec = OPERATIONS[task.op]
  try {
    if (task.raw) {
      if (!('body' in spec) || !spec.body) throw new Error(`${task.op} takes no raw body`)
      const parse = exactNumbers(task.op) ? parseJsonExact : JSON.parse
      const value = await spec.run(parseAndValidate(task.raw, spec.body, parse) as never)
      return { ok: true, value: JSON.stringify(value), startedAt, runMs: elapsed() }
    }
    const value = await spec.run(task.input as never)
    return { ok: true, value, startedAt, runMs: elapsed() }
  } catch (err) {
    if (!isAppError(err)) throw err
    const error = { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) }
    return { ok: false, error, startedAt, runMs: elapsed() }
  }
}
