import type { Catalog } from '../ops/catalog.ts'
import type { OpCost } from '../ops/define.ts'

// Where work may run inline: exec's decision (src/exec/decide.ts), from each op's cost model. An op
// describes what its work costs (OpDescriptor.cost, src/ops/define.ts: its worst case per KiB, measured by
// bench/cost-models.ts, and the measures only it can read: the output estimate of a pretty print, whether a
// JWT is verified with a public key, the longest run of combining marks); the budgets and thresholds are
// exec's. docs/dispatch.md#cost-models has the table and how it was measured.

const KiB = 1024

// What exec decides for: an op, or the gateway's own work on a body (a job's submission).
export interface Costed {
  name: string
  cost: OpCost<never>
}

// No inline request may hold the event loop longer than this in its worst case.
export const INLINE_BUDGET_US = 1000

// The inline bound a cost model allows: the largest power-of-two number of KiB whose worst case fits in
// INLINE_BUDGET_US (1 KiB at least: below that the fixed cost of a request dominates). A pool hop costs
// 0.05-0.2 ms, so below the bound the pool would only add latency, and above it the worst case would hold
// the loop longer than INLINE_BUDGET_US.
export function inlineBound(cost: Pick<OpCost<never>, 'usPerKiB'>): number {
  const kib = Math.max(1, 2 ** Math.floor(Math.log2(INLINE_BUDGET_US / cost.usPerKiB)))
  return kib * KiB
}

// A job's submission is parsed and validated before it is queued: its worst case is a body of exact-number
// documents (json.diff and json.patch keep numbers exact: a parse with a reviver, ~5x JSON.parse) or of
// unknown fields, ~0.11 ms per KiB on a loaded 2-core machine (it was a 64 KiB threshold: 3-9 ms, and
// 33-65 ms while every unknown field got its own did-you-mean, issue 27). A job is a large input's way in:
// most bodies are past the bound anyway, and a pool hop adds well under a millisecond to a submission.
export const JOB_SUBMISSION: Costed = {
  name: 'jobs.submit',
  cost: { worst: 'a body of exact-number documents or of unknown fields', usPerKiB: 110 },
}

const bounds = new WeakMap<Costed, number>()

// The largest declared body this work runs inline for a plan: the one accessor of the inline bound, so the
// bound's meaning (bytes today, a cost model per plan tomorrow) can change without touching the decider.
export function inlineUpTo(work: Costed, _limits?: unknown): number {
  let bound = bounds.get(work)
  if (bound === undefined) {
    bound = inlineBound(work.cost)
    bounds.set(work, bound)
  }
  return bound
}

// Whether the op's worst case depends on its input whatever the size (e.g. RSA signing), and so whether
// that input puts it on the pool.
export function heavyInput(work: Costed, input: unknown): boolean {
  const heavy = (work.cost as OpCost<unknown>).heavy
  return heavy?.(input, inlineUpTo(work)) === true
}

export function hasHeavyCase(work: Costed): boolean {
  return work.cost.heavy !== undefined
}

export interface CostRow {
  op: string
  worst: string
  usPerKiB: number
  inlineBytes: number
  heavy: boolean
}

// The cost table (docs/dispatch.md#cost-models, bench/cost-models.ts): every op's model and its inline bound.
export function costTable(catalog: Catalog): CostRow[] {
  return catalog.ops.map((op) => ({
    op: op.name,
    worst: op.cost.worst,
    usPerKiB: op.cost.usPerKiB,
    inlineBytes: inlineUpTo(op),
    heavy: op.cost.heavy !== undefined,
  }))
}
