import type { Cluster, Redis } from 'ioredis'
import type { PlanName } from '../../limits/plans.ts'
import { defineCommands } from '../../store/redis/commands.ts'
import type { Page } from '../../store/types.ts'
import {
  type JobError,
  type JobListQuery,
  type JobMeta,
  type JobOperation,
  type JobOutcome,
  type JobStatus,
  type NewJob,
  PENDING_TTL_MS,
  type StoredJob,
  type Tier,
} from '../types.ts'
import { inFlightKey, jobListKey, recordKey, statusListKey, statusListKeys } from './layout.ts'

const META_FIELDS = [
  'workspace_id',
  'operation',
  'plan',
  'tier',
  'budget_ms',
  'max_result_bytes',
  'max_job_storage_bytes',
  'status',
  'created_at',
  'started_at',
  'finished_at',
  'expires_at',
  'attempts',
  'stalls',
  'error',
  'cancel_requested_at',
  'progress',
] as const

const optionalNumber = (v: string | null | undefined) => (v ? Number(v) : undefined)

function decode(id: string, values: (string | null)[]): JobMeta | undefined {
  const f = Object.fromEntries(META_FIELDS.map((name, i) => [name, values[i] ?? null])) as Record<
    (typeof META_FIELDS)[number],
    string | null
  >
  if (!f.workspace_id || !f.status) return undefined
  const meta: JobMeta = {
    id,
    workspace_id: f.workspace_id,
    operation: f.operation as JobOperation,
    plan: f.plan as PlanName,
    tier: f.tier as Tier,
    budget_ms: Number(f.budget_ms),
    // records written before results were capped: no cap
    max_result_bytes: f.max_result_bytes ? Number(f.max_result_bytes) : Number.MAX_SAFE_INTEGER,
    ...(f.max_job_storage_bytes ? { max_job_storage_bytes: Number(f.max_job_storage_bytes) } : {}),
    status: f.status as JobStatus,
    created_at: Number(f.created_at),
    started_at: optionalNumber(f.started_at),
    finished_at: optionalNumber(f.finished_at),
    expires_at: optionalNumber(f.expires_at),
    attempts: Number(f.attempts ?? 0),
    stalls: Number(f.stalls ?? 0),
  }
  if (f.cancel_requested_at) meta.cancel_requested_at = Number(f.cancel_requested_at)
  if (f.progress) meta.progress = Number(f.progress)
  if (f.error) meta.error = JSON.parse(f.error) as JobError
  return meta
}

export type StartReply =
  | { state: 'gone' }
  | { state: 'finished' }
  | { state: 'cancel' }
  | {
      state: 'run'
      budgetMs: number
      maxResultBytes: number
      // undefined: a record written before job storage was budgeted
      maxStorageBytes: number | undefined
      input: Uint8Array
    }

// What a job's record keeps of its outcome once finish() has run, for the job storage ledger: the bytes of
// its result or error and when it expires; gone: the record is not there.
export type Kept = { state: 'gone' } | { state: 'kept'; recorded: boolean; bytes: number; expiresAt: number }

// A job's record: one hash under the workspace's hash tag, holding the status, the input until the job
// finishes and then the result. Every change that depends on the current status is one Lua script.
export class JobRecords {
  #client: Redis | Cluster
  #prefix: string

  constructor(client: Redis | Cluster, prefix: string) {
    defineCommands(client, new URL('./', import.meta.url))
    this.#client = client
    this.#prefix = prefix
  }

  key(workspaceId: string, id: string): string {
    return recordKey(this.#prefix, workspaceId, id)
  }

  inFlightKey(workspaceId: string): string {
    return inFlightKey(this.#prefix, workspaceId)
  }

  #status(workspaceId: string, status: JobStatus): string {
    return statusListKey(this.#prefix, workspaceId, status)
  }

  // false: the workspace already has maxInFlight jobs queued or running
  async create(job: NewJob, input: Uint8Array, maxInFlight?: number): Promise<boolean> {
    const key = this.key(job.workspace_id, job.id)
    const fields: Record<string, string | Buffer> = {
      workspace_id: job.workspace_id,
      operation: job.operation,
      plan: job.plan,
      tier: job.tier,
      budget_ms: String(job.budget_ms),
      max_result_bytes: String(job.max_result_bytes),
      max_job_storage_bytes: String(job.max_job_storage_bytes),
      status: 'queued',
      created_at: String(job.created_at),
      attempts: '0',
      stalls: '0',
      input: Buffer.from(input.buffer, input.byteOffset, input.byteLength),
    }
    const inFlight = this.inFlightKey(job.workspace_id)
    const args = Object.entries(fields).flat()
    const create = () =>
      this.#client.anvilJobCreate(
        key,
        inFlight,
        jobListKey(this.#prefix, job.workspace_id),
        ...(statusListKeys(this.#prefix, job.workspace_id) as [string, string, string, string, string]),
        maxInFlight ?? -1,
        PENDING_TTL_MS,
        job.id,
        job.created_at,
        ...args,
      )
    if ((await create()) === 1) return true
    // full: entries whose record is gone (expired unfinished) or finished without leaving are stale
    if ((await this.#prune(job.workspace_id)) === 0) return false
    return (await create()) === 1
  }

  // Takes out of the in-flight set the ids whose job is no longer queued or running. Safe at any time: a
  // job that left the set is never counted again, and one that is still in flight stays.
  async #prune(workspaceId: string): Promise<number> {
    const inFlight = this.inFlightKey(workspaceId)
    const ids = await this.#client.zrange(inFlight, '0', '-1')
    const statuses = await Promise.all(
      ids.map((id) => this.#client.hget(this.key(workspaceId, id), 'status')),
    )
    const stale = ids.filter((_, i) => statuses[i] !== 'queued' && statuses[i] !== 'active')
    if (stale.length > 0) await this.#client.zrem(inFlight, ...stale)
    return stale.length
  }

  async read(workspaceId: string, id: string): Promise<StoredJob | undefined> {
    const values = await this.#client.hmget(this.key(workspaceId, id), ...META_FIELDS, 'result')
    const meta = decode(id, values)
    // the key names the workspace; the check is there should a key ever be built wrong
    if (!meta || meta.workspace_id !== workspaceId) return undefined
    const result = values[META_FIELDS.length]
    return result ? { meta, result } : { meta }
  }

  async start(workspaceId: string, id: string, now: number, stalls: number): Promise<StartReply> {
    const reply = await this.#client.anvilJobStartBuffer(
      this.key(workspaceId, id),
      this.#status(workspaceId, 'queued'),
      this.#status(workspaceId, 'active'),
      now,
      stalls,
      id,
    )
    if (reply.length === 1) return { state: reply[0]!.toString() === 'cancel' ? 'cancel' : 'finished' }
    // a record without its input cannot run either
    if (reply.length < 3 || !reply[2]) return { state: 'gone' }
    const max = reply[3]?.toString()
    const storage = reply[4]?.toString()
    return {
      state: 'run',
      budgetMs: Number(reply[1]!.toString()),
      maxResultBytes: max ? Number(max) : Number.MAX_SAFE_INTEGER,
      maxStorageBytes: storage ? Number(storage) : undefined,
      input: reply[2],
    }
  }

  // records the outcome when this is the first finisher (the record then lives ttlMs); answers what the
  // record keeps of its outcome either way
  async finish(
    workspaceId: string,
    id: string,
    outcome: JobOutcome,
    now: number,
    ttlMs: number,
  ): Promise<Kept> {
    const [field, value] =
      outcome.status === 'completed'
        ? (['result', outcome.result] as const)
        : (['error', JSON.stringify(outcome.error)] as const)
    const key = this.key(workspaceId, id)
    const inFlight = this.inFlightKey(workspaceId)
    const expires = now + ttlMs
    const [recorded, bytes, expiresAt] = await this.#client.anvilJobFinish(
      key,
      inFlight,
      this.#status(workspaceId, 'queued'),
      this.#status(workspaceId, 'active'),
      this.#status(workspaceId, outcome.status),
      outcome.status,
      now,
      expires,
      ttlMs,
      field,
      value,
      id,
    )
    if (bytes < 0) return { state: 'gone' }
    return { state: 'kept', recorded: recorded === 1, bytes, expiresAt: Number(expiresAt) }
  }

  async requeue(workspaceId: string, id: string): Promise<void> {
    await this.#client.anvilJobRequeue(
      this.key(workspaceId, id),
      this.#status(workspaceId, 'active'),
      this.#status(workspaceId, 'queued'),
      id,
    )
  }

  async forget(workspaceId: string, id: string): Promise<void> {
    const multi = this.#client
      .multi()
      .del(this.key(workspaceId, id))
      .zrem(this.inFlightKey(workspaceId), id)
      .zrem(jobListKey(this.#prefix, workspaceId), id)
    for (const list of statusListKeys(this.#prefix, workspaceId)) multi.zrem(list, id)
    await multi.exec()
  }

  // force: the worker stopped the run on request, so an active job is cancelled too
  async cancel(workspaceId: string, id: string, now: number, ttlMs: number, force = false) {
    const key = this.key(workspaceId, id)
    const inFlight = this.inFlightKey(workspaceId)
    return this.#client.anvilJobCancel(
      key,
      inFlight,
      this.#status(workspaceId, 'queued'),
      this.#status(workspaceId, 'active'),
      this.#status(workspaceId, 'cancelled'),
      now,
      now + ttlMs,
      ttlMs,
      id,
      force ? '1' : '0',
    )
  }

  // the worker's look at a job it runs: stores the progress its operation reported (if any) and answers
  // whether the job was asked to stop, in one round trip
  async watch(workspaceId: string, id: string, progress: number | undefined): Promise<boolean> {
    const fraction = progress === undefined ? '' : String(progress)
    return (await this.#client.anvilJobProgress(this.key(workspaceId, id), fraction)) === 1
  }

  async readMeta(workspaceId: string, id: string): Promise<JobMeta | undefined> {
    const values = await this.#client.hmget(this.key(workspaceId, id), ...META_FIELDS)
    const meta = decode(id, values)
    return meta && meta.workspace_id === workspaceId ? meta : undefined
  }

  // A page of the workspace's jobs, newest first: ids from the job list, or from the list of the status
  // asked for (job-page.lua), in batches of what the page still needs plus one (which says has_more); their
  // records in one pipelined round trip per batch. Ids whose record is gone or past expires_at are dropped
  // from the lists as they are met, so only they cost a further batch, once.
  async list(workspaceId: string, query: JobListQuery): Promise<Page<JobMeta> | undefined> {
    const c = this.#client
    const all = jobListKey(this.#prefix, workspaceId)
    const read = query.status === undefined ? all : this.#status(workspaceId, query.status)
    let cursor = query.startingAfter ?? ''
    let cursorScore = ''
    const data: JobMeta[] = []
    for (;;) {
      const want = query.limit + 1 - data.length
      const reply = await c.anvilJobPage(all, read, cursor, want, cursorScore)
      if (reply === null) return undefined
      const ids = reply.filter((_, i) => i % 2 === 0)
      if (ids.length === 0) return { data, has_more: false }
      const rows = await Promise.all(ids.map((id) => c.hmget(this.key(workspaceId, id), ...META_FIELDS)))
      const gone: string[] = []
      for (let i = 0; i < ids.length; i++) {
        const meta = decode(ids[i]!, rows[i]!)
        // gone, or past expires_at (404 from now on, and Redis drops the record in a moment)
        if (!meta || (meta.expires_at !== undefined && meta.expires_at <= query.now)) {
          gone.push(ids[i]!)
          continue
        }
        // a job whose status changed between the two reads belongs to another list now
        if (query.status !== undefined && meta.status !== query.status) continue
        // one more than the page says whether there is more
        if (data.length === query.limit) return { data, has_more: true }
        data.push(meta)
      }
      if (gone.length > 0) await this.#drop(workspaceId, gone)
      if (ids.length < want) return { data, has_more: false }
      cursor = ids.at(-1)!
      cursorScore = reply.at(-1)!
    }
  }

  async #drop(workspaceId: string, ids: string[]): Promise<void> {
    const lists = [jobListKey(this.#prefix, workspaceId), ...statusListKeys(this.#prefix, workspaceId)]
    await Promise.all(lists.map((list) => this.#client.zrem(list, ...ids)))
  }
}
