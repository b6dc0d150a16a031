import { ERRORS, type ErrorCode } from '../errors.ts'
import type { JobMeta, StoredJob } from './types.ts'

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString())

// The public shape of a job (GET /v1/jobs/{id}) without its result; undefined fields drop out of JSON.
export function jobView(meta: JobMeta) {
  const e = meta.error
  // the key order of the synchronous error body, too
  const error = e && {
    type: ERRORS[e.code as ErrorCode]?.type ?? 'api_error',
    message: e.message,
    code: e.code,
    details: e.details,
  }
  return {
    id: meta.id,
    operation: meta.operation,
    status: meta.status,
    error,
    created_at: iso(meta.created_at),
    started_at: iso(meta.started_at),
    finished_at: iso(meta.finished_at),
    expires_at: iso(meta.expires_at),
  }
}

// The success envelope as text, with the stored result (JSON text) spliced in untouched: a result of
// tens of megabytes is never parsed or re-serialized on the event loop.
export function jobEnvelope(job: StoredJob): string {
  const head = JSON.stringify(jobView(job.meta))
  const data = job.result === undefined ? head : `${head.slice(0, -1)},"result":${job.result}}`
  return `{"ok":true,"data":${data}}`
}
