import { AppError } from '../src/errors.ts'
import { parseAndValidate } from '../src/lib/raw-json.ts'
import type { Catalog } from '../src/ops/catalog.ts'
import { checkJobParams, jobBodyOf } from '../src/ops/jobs/schema.ts'
import { parseJsonExact, plainNumbers } from '../src/ops/json/number.ts'
import type { OpContext } from '../src/ops/progress.ts'

// What a job's pool tasks do (kinds 'job.prepare' and 'job.run' of the one thread entry,
// workers/entry.ts): pure functions of the submitted body's bytes, so a large document is parsed,
// validated, run and serialized on a worker thread and never on an event loop. Expected failures throw
// AppError; the thread entry turns them into the protocol's error reply.

// Numbers stay exact where the operation keeps them so (OpDescriptor.exactNumbers: json.diff, json.patch;
// see src/ops/json/number.ts) and are plain doubles for the others, as their synchronous endpoints have them.
function parserFor(catalog: Catalog): (text: string) => unknown {
  return (text) => {
    const data = parseJsonExact(text)
    const operation = (data as { operation?: unknown } | null)?.operation
    const exact = typeof operation === 'string' && catalog.named(operation)?.exactNumbers === true
    return exact ? data : plainNumbers(data)
  }
}

// A submitted job body: its operation, or the error the submission is refused with.
export function prepareBody(catalog: Catalog, bytes: Uint8Array): string {
  const body = parseAndValidate(bytes, jobBodyOf(catalog), parserFor(catalog))
  return checkJobParams(catalog, body).name
}

// A job run: the data the synchronous endpoint answers with, as JSON text, measured here, on the worker
// thread: an oversized result never reaches the gateway or the store. `context`: the op's caps, and its
// progress callback for the operations that can tell (see src/ops/progress.ts).
export async function runBody(
  catalog: Catalog,
  input: Uint8Array,
  maxResultBytes: number,
  context: OpContext,
): Promise<string> {
  const body = parseAndValidate(input, jobBodyOf(catalog), parserFor(catalog))
  const value = await catalog.named(body.operation)!.run(body.params, context)
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
