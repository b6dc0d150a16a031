// What an op may be handed besides its input. An op that can tell how far it has got (bytes hashed,
// bytes formatted, patch operations applied) calls `progress` at coarse steps with the fraction of its work
// done, 0 ≤ f < 1; an op that cannot tell ignores it. The callback is plain data-in: the op stays a pure
// function of its input (its answer never depends on the callback), and the callers that pass one are
// job runs (workers/jobs.ts), where the fraction becomes the job's `progress`.
export type Progress = (fraction: number) => void

export interface OpContext {
  progress?: Progress | undefined
}

// Calls to `progress` are meant to be cheap but not free: steps of this many bytes of input.
export const PROGRESS_STEP_BYTES = 1024 * 1024
