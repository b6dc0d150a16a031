import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { AppError } from '../../errors.ts'
import { JOB_BUDGET_FACTOR, JOB_INPUT_FACTOR, JOB_STATUSES } from '../../jobs/types.ts'
import { jobEnvelope, jobView, pollAfterSeconds } from '../../jobs/view.ts'
import { CATALOG, type Catalog } from '../../ops/catalog.ts'
import { jobBodyOf, jobOps } from '../../ops/jobs/schema.ts'
import { answerJson } from '../answer/answer.ts'
import { readLimited } from '../body/consume-limited.ts'
import { checkCharset, declaredTooLarge } from '../body/parsers.ts'
import { isReadable } from '../body/stream-transform.ts'
import { errorCodeSchema, errorTypeSchema } from '../openapi/schemas.ts'
import { defineRoute } from '../route/define-route.ts'
import { listSchema, pageOrRefuse, pageQueryFields } from '../route/pagination.ts'
import { typedJobView } from './job-view.ts'

const timestamp = (what: string) => z.iso.datetime().describe(what)

const submitted = z.object({
  id: z.string().describe('The job id: job_ and 24 base62 characters'),
  status: z.literal('queued'),
})

// A job as GET /v1/jobs/{id} answers it, for the catalog's job operations (OpDescriptor.job).
export function jobResultOf(catalog: Catalog) {
  const ops = jobOps(catalog)
  const told = ops.filter((op) => op.job?.progress !== undefined)
  const silent = ops.filter((op) => op.job?.progress === undefined).map((op) => op.name)
  const progressMeaning =
    told.map((op) => `${op.name}: ${op.job!.progress}`).join('; ') +
    (silent.length > 0
      ? `; ${silent.join(', ')} cannot tell and ${silent.length > 1 ? 'stay' : 'stays'} at 0`
      : '')
  return z.object({
    id: z.string(),
    operation: z.enum(ops.map((op) => op.name) as [string, ...string[]]),
    status: z
      .enum(JOB_STATUSES)
      .describe(
        'queued: waiting for a worker (again after a worker was lost mid-run); active: running; completed: ' +
          '`result` is set; failed: `error` is set; cancelled: stopped by DELETE /v1/jobs/{id}',
      ),
    progress: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe(
        'What the worker has reported, 0 to 1, never decreasing: while running, the fraction of its input the ' +
          `operation has processed (${progressMeaning}), stored about four times a second. 0 while queued, ` +
          '1 when completed, null when failed or cancelled',
      ),
    result: z
      .unknown()
      .optional()
      .describe("When completed: the `data` the operation's synchronous endpoint answers with"),
    error: z
      .object({
        type: errorTypeSchema,
        message: z.string(),
        code: errorCodeSchema,
        details: z.record(z.string(), z.unknown()).optional(),
      })
      .optional()
      .describe(
        'When failed: the error object the synchronous endpoint would answer with (ERR_PATCH_TEST_FAILED, ' +
          'ERR_COMPUTE_LIMIT, ...)',
      ),
    created_at: timestamp('When the job was accepted'),
    started_at: timestamp('When its latest run began').optional(),
    finished_at: timestamp('When it completed or failed').optional(),
    expires_at: timestamp('When a finished job and its result are deleted (404 from then on)').optional(),
    cancel_requested_at: timestamp(
      'When DELETE /v1/jobs/{id} asked the running job to stop (it becomes cancelled once its run has stopped)',
    ).optional(),
  })
}

// The built-in catalog's job view (what tests hold an answer to).
export const jobResult = jobResultOf(CATALOG)

// the view leaves absent times undefined, which JSON drops: the schema's optional fields
const summary = (meta: Parameters<typeof jobView>[0]) => jobView(meta) as z.input<typeof jobResult>

// the polling hint of an unfinished job (src/jobs/view.ts, pollAfterSeconds)
const POLL_HINT =
  'While the job has not finished: seconds to wait before polling it again, 1 while queued and 2 while ' +
  'running. Absent once it is completed, failed or cancelled.'

const notFound = (id: string) => new AppError('ERR_NOT_FOUND', 'No such job in this workspace.', { id })

export async function jobsRoutes(app: FastifyInstance, options: { catalog: Catalog }): Promise<void> {
  const jobs = jobResultOf(options.catalog)
  const jobSummary = jobs.omit({ result: true })
  const names = jobOps(options.catalog).map((op) => op.name)
  const listed = `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`
  // In this plugin a JSON body is handed over unread: it is read as bytes and parsed off the event loop
  // when large (src/jobs/prepare.ts), so a job of tens of megabytes never stalls the gateway.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    'application/json',
    async function passJobBody(request: FastifyRequest, payload: NodeJS.ReadableStream) {
      checkCharset(request.headers['content-type'])
      declaredTooLarge(request)
      return payload
    },
  )

  // After the key and limits (onRequest of the auth plugin), before a byte of the body is read.
  app.addHook('onRequest', async function paidPlansAndJobLimit(request) {
    const auth = request.auth
    if (!auth || request.method !== 'POST') return
    request.bodyLimit = auth.limits.max_json_bytes * JOB_INPUT_FACTOR
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/jobs',
    security: 'apiKey',
    family: 'jobs',
    paidOnly: true,
    status: 202,
    operationId: 'submitJob',
    idempotent: true,
    summary: 'Run an operation as an async job',
    description:
      `Queues ${listed} with \`params\`, the body its synchronous endpoint ` +
      'takes, validated the same way: a body that endpoint would refuse with a 400 is refused here with the ' +
      `same 400. Paid plans only (free: 403 ERR_KEY_SCOPE). The body may be ${JOB_INPUT_FACTOR}x the ` +
      "plan's JSON body limit, and a job may compute for " +
      `${JOB_BUDGET_FACTOR}x the plan's per-request budget. Answers 202 with the job id (and a Location ` +
      'header); poll GET /v1/jobs/{id}, which says when to poll again in `Retry-After` while the job has ' +
      "not finished. A workspace has at most its plan's max_jobs_in_flight jobs queued or running: past " +
      "that, 409 ERR_CONFLICT {limit, max}. Its jobs' data (inputs, results, 8 KiB per job) is at most its " +
      "plan's max_job_storage_bytes: past that, 409 ERR_CONFLICT {limit, max, stored, bytes}; when the " +
      "service's job storage is full, 503 ERR_JOB_STORAGE_FULL (Retry-After, not charged). " +
      'One request of quota is charged at submission; polls are ' +
      'rate-limited like any call ' +
      'but not charged to the monthly quota. A job accepted is kept: a worker lost mid-run is replaced and ' +
      'the job runs again. Safe to retry with an `Idempotency-Key` header.',
    tags: ['Jobs'],
    body: jobBodyOf(options.catalog),
    response: submitted,
    // ERR_CONFLICT: max_jobs_in_flight or max_job_storage_bytes reached
    errors: [
      'ERR_UNSUPPORTED_ALGORITHM',
      'ERR_COMPUTE_LIMIT',
      'ERR_OVERLOADED',
      'ERR_CONFLICT',
      'ERR_JOB_STORAGE_FULL',
    ],
    handler: async function submitJob({ body, request, reply }) {
      const auth = request.auth
      if (!auth) throw new AppError('ERR_INTERNAL')
      // bytes already when an Idempotency-Key was given (its hook read the body to fingerprint it)
      const bytes = Buffer.isBuffer(body)
        ? body
        : isReadable(body)
          ? await readLimited(body, request.bodyLimit)
          : undefined
      if (!bytes) throw new AppError('ERR_INTERNAL')
      const context = { workspaceId: auth.workspace.id, plan: auth.workspace.plan, limits: auth.limits }
      const job = await request.server.jobs.submit(context, bytes)
      reply.header('location', `/v1/jobs/${job.id}`)
      return { id: job.id, status: 'queued' as const }
    },
  })

  defineRoute(app, {
    method: 'GET',
    url: '/v1/jobs/:id',
    security: 'apiKey',
    family: 'jobs',
    // a poll reads what the submission paid for: rate-limited, never charged to the monthly quota
    charge: 'rate-only',
    operationId: 'getJob',
    summary: 'Get an async job and its result',
    description:
      'A job is visible to keys of the workspace that submitted it only: any other id, including another ' +
      'workspace’s job, is 404 ERR_NOT_FOUND. A finished job is kept for 24 hours (JOBS_RESULT_TTL_SECONDS) ' +
      'after it finished, until `expires_at`; then it is 404 as well. Polls are rate-limited (RateLimit ' +
      'headers, 429 ERR_RATE_LIMITED) but not charged to the monthly quota, nor refused when it is spent.',
    tags: ['Jobs'],
    params: z.object({ id: z.string().describe('The id POST /v1/jobs answered with') }),
    response: typedJobView(jobs, options.catalog),
    headers: { 'Retry-After': POLL_HINT },
    errors: ['ERR_NOT_FOUND'],
    handler: async function getJob({ params, request, reply }) {
      const auth = request.auth
      if (!auth) throw new AppError('ERR_INTERNAL')
      const job = await request.server.jobs.get(auth.workspace.id, params.id)
      if (!job) throw notFound(params.id)
      const poll = pollAfterSeconds(job.meta)
      if (poll !== undefined) reply.header('retry-after', String(poll))
      return answerJson(request, reply, 200, jobEnvelope(job))
    },
  })

  defineRoute(app, {
    method: 'GET',
    url: '/v1/jobs',
    security: 'apiKey',
    family: 'jobs',
    // a list is a poll of many jobs: rate-limited, not charged to the monthly quota (like GET /v1/jobs/{id})
    charge: 'rate-only',
    operationId: 'listJobs',
    summary: "List the workspace's jobs, newest first (paginated)",
    description:
      'Every job of the workspace that has not expired, newest first, without results (GET /v1/jobs/{id} ' +
      'has the result). `status` keeps only jobs in that state. Pages: `limit` (1–100, default 20) and ' +
      '`starting_after` (the last id of the previous page); `has_more` says whether more follow.',
    tags: ['Jobs'],
    querystring: z.strictObject({
      ...pageQueryFields,
      status: z.enum(JOB_STATUSES).optional().describe('Only jobs in this state'),
    }),
    response: listSchema(jobSummary, 'Jobs'),
    errors: ['ERR_VALIDATION'],
    handler: async function listJobs({ query, request }) {
      const auth = request.auth
      if (!auth) throw new AppError('ERR_INTERNAL')
      const page = pageOrRefuse(
        await request.server.jobs.list(auth.workspace.id, {
          limit: query.limit,
          startingAfter: query.starting_after,
          status: query.status,
        }),
        query.starting_after,
      )
      return { data: page.data.map(summary), has_more: page.has_more }
    },
  })

  defineRoute(app, {
    method: 'DELETE',
    url: '/v1/jobs/:id',
    security: 'apiKey',
    family: 'jobs',
    operationId: 'cancelJob',
    summary: 'Cancel a job',
    description:
      'A queued job is cancelled at once: it never runs, its input is deleted, and it answers with status ' +
      '`cancelled` (kept like a finished job, until `expires_at`). A running job is asked to stop: the ' +
      'answer still says `active`, with `cancel_requested_at`; the worker running it checks for the ' +
      'request within a quarter of a second, aborts the computation on its thread and records the job ' +
      '`cancelled` (if the run finishes first, its outcome stands). A job that already has its outcome ' +
      'is 409 ERR_CONFLICT with details {status}. Cancelling twice is harmless.',
    tags: ['Jobs'],
    params: z.object({ id: z.string().describe('The id POST /v1/jobs answered with') }),
    response: jobSummary,
    headers: { 'Retry-After': POLL_HINT },
    errors: ['ERR_NOT_FOUND', 'ERR_CONFLICT'],
    handler: async function cancelJob({ params, request, reply }) {
      const auth = request.auth
      if (!auth) throw new AppError('ERR_INTERNAL')
      const outcome = await request.server.jobs.cancel(auth.workspace.id, params.id)
      if (outcome.state === 'gone') throw notFound(params.id)
      if (outcome.state === 'finished' && outcome.meta.status !== 'cancelled') {
        throw new AppError('ERR_CONFLICT', `The job has already ${outcome.meta.status}.`, {
          status: outcome.meta.status,
        })
      }
      const poll = pollAfterSeconds(outcome.meta)
      if (poll !== undefined) reply.header('retry-after', String(poll))
      return summary(outcome.meta)
    },
  })
}
