import { z } from 'zod'
import { JOB_OPERATIONS, type JobOperation } from '../../jobs/types.ts'
import { hashResult } from '../../ops/hash/schema.ts'
import { formatResult } from '../../ops/json/format/schema.ts'
import { patchResult } from './json.ts'
import { jsonDiffResult } from './json-diff.ts'

// What each job operation's synchronous endpoint answers with: a job's `result` has that type.
const RESULTS: Record<JobOperation, z.ZodType> = {
  'json.diff': jsonDiffResult,
  'json.format': formatResult,
  'json.patch': patchResult,
  hash: hashResult,
}

// The job view typed per operation for clients (the OpenAPI document shows a oneOf discriminated by
// `operation`), built from the one view schema so a field added to it appears under every operation.
export function typedJobView<S extends z.ZodRawShape>(view: z.ZodObject<S>) {
  const described = (view.shape as { result?: z.ZodType }).result?.description
  const [first, ...rest] = JOB_OPERATIONS.map((operation) =>
    view.extend({
      operation: z.literal(operation),
      result: RESULTS[operation].optional().describe(described ?? 'When completed: the result'),
    }),
  )
  return z.discriminatedUnion('operation', [first!, ...rest]).meta({ id: 'Job' })
}
