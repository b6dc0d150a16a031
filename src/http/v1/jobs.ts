import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { AppError } from '../../errors.ts'
import { jobBody } from '../../jobs/schema.ts'
import { JOB_BUDGET_FACTOR, JOB_INPUT_FACTOR, JOB_OPERATIONS } from '../../jobs/types.ts'
import { jobEnvelope } from '../../jobs/view.ts'
import { readLimited } from '../body/consume-limited.ts'
import { checkCharset, declaredTooLarge } from '../body/parsers.ts'
import { isReadable } from '../body/stream-digest.ts'
import { defineRoute } from '../define-route.ts'

const STATUSES = ['queued', 'active', 'completed', 'failed'] as const
const timestamp = (what: string) => z.iso.datetime().describe(what)

const submitted = z.object({
  id: z.string().describe('The job id: job_ and 24 base62 characters'),
  status: z.literal('queued'),
})

export const jobResult = z.object({
  id: z.string(),
  operation: z.enum(JOB_OPERATIONS),
  status: z
    .enum(STATUSES)
    .describe(
      'queued: waiting for a worker (again after a worker was lost mid-run); active: running; completed: ' +
        '`result` is set; failed: `error` is set',
    ),
  result: z
    .unknown()
    .optional()
    .describe("When completed: the `data` the operation's synchronous endpoint answers with"),
  error: z
    .object({
      type: z.string(),
      message: z.string(),
      code: z.string(),
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
})

export async function jobsRoutes(app: FastifyInstance): Promise<void> {
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
    summary: 'Run an operation as an async job',
    description:
      'Queues json.diff, json.format, json.patch or hash with `params`, the body its synchronous endpoint ' +
      'takes, validated the same way: a body that endpoint would refuse with a 400 is refused here with the ' +
      `same 400. Paid plans only (free: 403 ERR_KEY_SCOPE). The body may be ${JOB_INPUT_FACTOR}x the ` +
      "plan's JSON body limit, and a job may compute for " +
      `${JOB_BUDGET_FACTOR}x the plan's per-request budget. Answers 202 with the job id (and a Location ` +
      'header); poll GET /v1/jobs/{id}. One request of quota is charged at submission, and each poll is ' +
      'one request like any other. A job accepted is kept: a worker lost mid-run is replaced and the ' +
      'job runs again.',
    tags: ['Jobs'],
    body: jobBody,
    response: submitted,
    errors: ['ERR_UNSUPPORTED_ALGORITHM', 'ERR_COMPUTE_LIMIT', 'ERR_OVERLOADED'],
    handler: async function submitJob({ body, request, reply }) {
      const auth = request.auth
      if (!auth || !isReadable(body)) throw new AppError('ERR_INTERNAL')
      const bytes = await readLimited(body, request.bodyLimit)
      request.bodyBytes = bytes.length
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
    operationId: 'getJob',
    summary: 'Get an async job and its result',
    description:
      'A job is visible to keys of the workspace that submitted it only: any other id, including another ' +
      'workspace’s job, is 404 ERR_NOT_FOUND. A finished job is kept for 24 hours (JOBS_RESULT_TTL_SECONDS) ' +
      'after it finished, until `expires_at`; then it is 404 as well.',
    tags: ['Jobs'],
    params: z.object({ id: z.string().describe('The id POST /v1/jobs answered with') }),
    response: jobResult,
    errors: ['ERR_NOT_FOUND'],
    handler: async function getJob({ params, request, reply }) {
      const auth = request.auth
      if (!auth) throw new AppError('ERR_INTERNAL')
      const job = await request.server.jobs.get(auth.workspace.id, params.id)
      if (!job) throw new AppError('ERR_NOT_FOUND', 'No such job in this workspace.', { id: params.id })
      return reply.type('application/json; charset=utf-8').send(jobEnvelope(job))
    },
  })
}
