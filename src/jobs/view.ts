import { ERRORS, knownError } from '../errors.ts'
import { okEnvelope } from '../lib/envelope.ts'
import type { JobMeta, StoredJob } from './types.ts'

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString())

// The public shape of a job (GET /v1/jobs/{id}) without its result; undefined fields drop out of JSON.
export function jobView(meta: JobMeta) {
  // a code this gateway does not know (written by a newer worker) is shown as ERR_INTERNAL
  const known = meta.error && knownError(meta.error)
  // the key order of the synchronous error body, too
  const error = known && {
    type: ERRORS[known.code].type,
    message: known.message,
    code: known.code,
    details: known.details,
  }
  return {
    id: meta.id,
    operation: meta.operation,
    status: meta.status,
    progress: progressOf(meta),
    error,
    created_at: iso(meta.created_at),
    started_at: iso(meta.started_at),
    finished_at: iso(meta.finished_at),
    expires_at: iso(meta.expires_at),
    cancel_requested_at: iso(meta.cancel_requested_at),
  }
}

// Honest progress, 0 to 1: what the worker has told. While the job runs, the fraction its operation
// last reported (hash, json.format, json.patch report steps; json.diff cannot tell and stays at 0), kept
// by the record as it only grows (a job queued again after a lost run keeps what the lost run reached
// until the new run passes it); 1 once completed; null when the job did not run to its end (failed or
// cancelled: no fraction applies).
export function progressOf(meta: JobMeta): number | null {
  switch (meta.status) {
    case 'queued':
    case 'active':
      return meta.progress ?? 0
    case 'completed':
      return 1
    default:
      return null
  }
}

// The polling hint for a job that has not finished (seconds): soon for a queued one, a little later for
// one already running. undefined once it has its outcome.
export function pollAfterSeconds(meta: JobMeta): number | undefined {
  if (meta.status === 'queued') return 1
  if (meta.status === 'active') return 2
  return undefined
}

// The success envelope as text, with the stored result (JSON text) spliced in untouched: a result of
// tens of megabytes is never parsed or re-serialized on the event loop.
export function jobEnvelope(job: StoredJob): string {
  const head = JSON.stringify(jobView(job.meta))
  const data = job.result === undefined ? head : `${head.slice(0, -1)},"result":${job.result}}`
  return okEnvelope(data)
}
