import { AppError } from '../src/errors.ts'
import { parseAndValidate } from '../src/lib/raw-json.ts'
import { checkJobParams, type JobBody, jobBody } from '../src/ops/jobs/schema.ts'
import { parseJsonExact, plainNumbers } from '../src/ops/json/number.ts'
import type { OpContext, Progress } from '../src/ops/progress.ts'
import { exactNumbers, OPERATIONS } from '../src/ops/registry.ts'

// What a job's pool tasks do (kinds 'job.prepare' and 'job.run' of the one thread entry,
// workers/entry.ts): pure functions of the submitted body's bytes, so a large document is parsed,
// validated, run and serialized on a worker thread and never on an event loop. Expected failures throw
// AppError; the thread entry turns them into the protocol's error reply.

// Numbers stay exact where the operation keeps them so (json.diff, json.patch: see
// src/ops/json/number.ts) and are plain doubles for the others, as their synchronous endpoints have them.
function parseJob(text: string): unknown {
  const data = parseJsonExact(text)
  const operation = (data as { operation?: unknown } | null)?.operation
  return typeof operation === 'string' && exactNumbers(operation) ? data : plainNumbers(data)
}

// A submitted job body: its operation, or the error the submission is refused with.
export function prepareBody(bytes: Uint8Array): JobBody['operation'] {
  const body = parseAndValidate(bytes, jobBody, parseJob)
  checkJobParams(body)
  return body.operation
}

// A job run: the data the synchronous endpoint answers with, as JSON text, measured here, on the worker
// thread: an oversized result never reaches the gateway or the store.
// `progress`: the op's progress callback, for the operations that can tell (see src/ops/progress.ts).
export async function runBody(
  input: Uint8Array,
  maxResultBytes: number,
  progress?: Progress,
): Promise<string> {
  const body = parseAndValidate(input, jobBody, parseJob)
  // every job operation takes an OpContext second (json.diff ignores it: it cannot tell how far it is)
  const run = OPERATIONS[body.operation].run as (params: unknown, context: OpContext) => unknown
  const value = await run(body.params, { progress })
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
}
