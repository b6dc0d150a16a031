import { AppError, isAppError } from '../errors.ts'
import { parseAndValidate } from '../lib/raw-json.ts'
import { parseJsonExact, plainNumbers } from '../ops/json/number.ts'
import { exactNumbers, OPERATIONS } from '../ops/registry.ts'
import { checkJobParams, jobBody } from './schema.ts'
import type { JobError, JobOperation } from './types.ts'

// Piscina task entry for jobs, run on the plan tier's pool beside src/exec/op-thread.ts (chosen per task with
// Piscina's `filename` and `name`): pure functions of the submitted body's bytes, so a large document is
// parsed, validated, run and serialized on a worker thread and never on an event loop.
export type TaskReply<T> = { ok: true; value: T } | { ok: false; error: JobError }

async function reply<T>(work: () => T | Promise<T>): Promise<TaskReply<T>> {
  try {
    return { ok: true, value: await work() }
  } catch (err) {
    // AppError does not survive the thread boundary; anything else is a bug and rejects
    if (!isAppError(err)) throw err
    const error: JobError = { code: err.code, message: err.message }
    if (err.details) error.details = err.details
    return { ok: false, error }
  }
}

// Numbers stay exact where the operation keeps them so (json.diff, json.patch: see
// src/ops/json/number.ts) and are plain doubles for the others, as their synchronous endpoints have them.
function parseJob(text: string): unknown {
  const data = parseJsonExact(text)
  const operation = (data as { operation?: unknown } | null)?.operation
  return typeof operation === 'string' && exactNumbers(operation) ? data : plainNumbers(data)
}

// A submitted job body: its operation, or the error the submission is refused with.
export function prepare(bytes: Uint8Array): Promise<TaskReply<JobOperation>> {
  return reply(() => {
    const body = parseAndValidate(bytes, jobBody, parseJob)
    checkJobParams(body)
    return body.operation
  })
}

export interface RunTask {
  input: Uint8Array
  // measured here, on the worker thread: an oversized result never reaches the gateway or the store
  maxResultBytes: number
}

// A job run: the data the synchronous endpoint answers with, as JSON text, or its error.
export function run({ input, maxResultBytes }: RunTask): Promise<TaskReply<string>> {
  return reply(async () => {
    const body = parseAndValidate(input, jobBody, parseJob)
    const value = await OPERATIONS[body.operation].run(body.params as never)
    const text = JSON.stringify(value)
    // UTF-8 is at most 3 bytes per UTF-16 unit: most results are decided without measuring
    if (text.length * 3 > maxResultBytes) {
      const bytes = Buffer.byteLength(text)
      if (bytes > maxResultBytes) {
        throw new AppError(
          'ERR_RESULT_TOO_LARGE',
          `The job's result is ${bytes} bytes; the plan allows ${maxResultBytes}.`,
          { limit: 'max_job_result_bytes', max: maxResultBytes, bytes },
        )
      }
    }
    return text
  })
}
