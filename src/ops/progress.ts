// What an op may be handed besides its input. An op that can tell how far it has got (bytes hashed,
// bytes formatted, patch operations applied) calls `progress` at coarse steps with the fraction of its work
// done, 0 ≤ f < 1; an op that cannot tell ignores it. The callback is plain data-in: the op stays a pure
// function of its input (its answer never depends on the callback), and the callers that pass one are
// job runs (workers/jobs.ts), where the fraction becomes the job's `progress`.
export type Progress = (fraction: number) => void

// `caps`: the values of the caps the op declares (OpDescriptor.caps, src/ops/define.ts) for the plan of
// the workspace it runs for: plain numbers the op holds its input to (an op that declares none gets {}).
// `tenant`: the workspace it runs for, for an op that keeps something between runs (json.validate's
// compiled schemas) and must keep each workspace's apart; '' where none is (the warm-up).
export interface OpContext {
  caps: Readonly<Record<string, number>>
  tenant: string
  progress?: Progress | undefined
}

// Calls to `progress` are meant to be cheap but not free: steps of this many bytes of input.
export const PROGRESS_STEP_BYTES = 1024 * 1024
