import { z } from 'zod'
import type { Catalog } from '../catalog.ts'
import type { AnyOp } from '../define.ts'

// A job's body: an operation that may run as a job (OpDescriptor.job, src/ops/define.ts) and its params,
// the body of the operation's synchronous endpoint, validated by the same schema (plus what its path adds:
// a hash job names its algorithm). Derived from the catalog, so an op declared as a job is a job kind.

function jobOf(op: AnyOp) {
  return z.strictObject({
    operation: z.literal(op.name),
    params: (op.job?.params ?? op.body).describe(
      `The body of POST ${op.http.path.replace(/:(\w+)/g, '{$1}')}${op.stream ? ' (JSON body)' : ''}, with the ` +
        `same fields, defaults and limits${op.job?.params ? ', plus what its path takes' : ''}`,
    ),
  })
}

// The operations that may run as jobs, in the catalog's order.
export function jobOps(catalog: Catalog): AnyOp[] {
  return catalog.ops.filter((op) => op.job !== undefined)
}

const bodies = new WeakMap<Catalog, z.ZodType<JobBody>>()

// The schema of a job's body for this catalog's job ops.
export function jobBodyOf(catalog: Catalog): z.ZodType<JobBody> {
  let schema = bodies.get(catalog)
  if (!schema) {
    const [first, ...rest] = jobOps(catalog).map(jobOf)
    if (!first) throw new Error('no operation runs as a job')
    schema = z.discriminatedUnion('operation', [first, ...rest]) as unknown as z.ZodType<JobBody>
    bodies.set(catalog, schema)
  }
  return schema
}

export interface JobBody {
  operation: string
  params: Record<string, unknown>
}

// What the synchronous endpoint refuses before it runs anything is refused at submission too.
export function checkJobParams(catalog: Catalog, body: JobBody): AnyOp {
  const op = catalog.named(body.operation)!
  op.job?.check?.(body.params as never)
  return op
}
