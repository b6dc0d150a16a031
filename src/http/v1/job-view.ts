import { z } from 'zod'
import type { Catalog } from '../../ops/catalog.ts'
import { jobOps } from '../../ops/jobs/schema.ts'

// The job view typed per operation for clients (the OpenAPI document shows a oneOf discriminated by
// `operation`): a job's `result` is what its operation's synchronous endpoint answers with (the op's
// response schema), built from the one view schema so a field added to it appears under every operation.
export function typedJobView<S extends z.ZodRawShape>(view: z.ZodObject<S>, catalog: Catalog) {
  const described = (view.shape as { result?: z.ZodType }).result?.description
  const [first, ...rest] = jobOps(catalog).map((op) =>
    view.extend({
      operation: z.literal(op.name),
      result: (op.response as z.ZodType).optional().describe(described ?? 'When completed: the result'),
    }),
  )
  return z.discriminatedUnion('operation', [first!, ...rest]).meta({ id: 'Job' })
}
