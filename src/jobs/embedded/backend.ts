import { performance } from 'node:perf_hooks'
import { AppError, ERRORS } from '../../errors.ts'
import type { PoolSet } from '../../exec/pools.ts'
import { ProgressProbe } from '../../exec/progress-board.ts'
import { capExceeded } from '../../limits/tenant-caps.ts'
import type { Page } from '../../store/types.ts'
import type { JobMetrics } from '../metrics.ts'
import { recordOutcome, stalledOut } from '../outcome.ts'
import { PoolBusyError, runJob } from '../run-job.ts'
import { JOB_RECORD_BYTES, jobBytes, outcomeBytes, resultRefused, submitRefused } from '../storage.ts'
import {
  type CancelReply,
  emptyDepth,
  isFinished,
  type JobBackend,
  type JobListQuery,
  type JobMeta,
  type JobOutcome,
  MAX_STALLS,
  type NewJob,
  planPriority,
  type QueueDepth,
  type StorageUse,
  type StoredJob,
  TIERS,
  type Tier,
} from '../types.ts'
import { JobFiles } from './files.ts'
import { JobIndex } from './job-index.ts'
import { MemoryLedger } from './ledger.ts'

export interface EmbeddedJobsOptions {
  dir: string
  pools: PoolSet
  concurrency: Record<Tier, number>
  resultTtlSeconds: number
  // how often a running job's progress is read from its pool task into its record
  progressIntervalMs: number
  clock: () => number
  metrics: JobMetrics
  log: (message: string, detail: Record<string, unknown>) => void
  // the disk's job storage budget (JOBS_MAX_STORAGE_BYTES, or a share of the disk: src/jobs/open.ts);
  // undefined: none
  maxStorageBytes: number | undefined
}

const RETRY_BUSY_MS = 1_000

// Jobs without Redis: the same statuses and lifetimes, run in this process on its pools. Every job is on
// disk before it is acknowledged and moves forward there, so a restart resumes what was queued or running.
export class EmbeddedJobBackend implements JobBackend {
  readonly kind = 'embedded' as const
  #o: EmbeddedJobsOptions
  // job storage: what each job's files hold, per workspace and in all (storage.ts)
  #ledger = new MemoryLedger()
  #files: JobFiles
  #jobs = new Map<string, JobMeta>()
  #waiting: Record<Tier, JobMeta[]> = { paid: [], free: [] }
  #running = new Map<
    string,
    { tier: Tier; stop: AbortController; cancel: AbortController; done: Promise<void> }
  >()
  #delayed = new Map<NodeJS.Timeout, Tier>()
  #sweeper: NodeJS.Timeout
  #closed = false
  // workspace id → ids of its jobs queued or running, taken synchronously at submission (max_jobs_in_flight)
  #inFlight = new Map<string, Set<string>>()
  // the lists in creation order and the finished jobs in expiry order: a page or a sweep costs what it
  // returns, not the number of jobs kept
  #index = new JobIndex()
  // finished jobs per tier, for depth() without a scan
  #done: Record<Tier, { completed: number; failed: number }> = {
    paid: { completed: 0, failed: 0 },
    free: { completed: 0, failed: 0 },
  }

  private constructor(options: EmbeddedJobsOptions) {
    this.#o = options
    this.#files = new JobFiles(options.dir)
    const every = Math.min(60_000, Math.max(1_000, options.resultTtlSeconds * 250))
    this.#sweeper = setInterval(() => void this.#sweep(), every).unref()
  }

  static async open(options: EmbeddedJobsOptions): Promise<EmbeddedJobBackend> {
    const backend = new EmbeddedJobBackend(options)
    await backend.#recover()
    return backend
  }

  // Records left queued or active by the last process: queued ones wait again; active ones lost their
  // run with the process, which counts as a stall.
  async #recover(): Promise<void> {
    const metas = (await this.#files.load()).sort((a, b) => a.created_at - b.created_at)
    for (const meta of metas) {
      this.#jobs.set(meta.id, meta)
      this.#index.added(meta)
      // what is on disk is counted as it is, whatever the budgets are now
      this.#ledger.set(meta.workspace_id, meta.id, jobBytes(await this.#keptBytes(meta)))
      if (meta.status === 'completed' || meta.status === 'failed') this.#done[meta.tier][meta.status]++
      if (isFinished(meta.status)) continue
      this.#take(meta.workspace_id, meta.id)
      // asked to stop before the last process ended: cancelled, not run again
      if (meta.cancel_requested_at !== undefined) {
        await this.#cancelled(meta)
        continue
      }
      if (meta.status === 'active') {
        meta.stalls++
        this.#o.metrics.failed.inc({ operation: meta.operation, reason: 'stalled' })
      }
      if (meta.stalls > MAX_STALLS) {
        await this.#finish(meta, stalledOut(meta.stalls), undefined)
        continue
      }
      meta.status = 'queued'
      await this.#files.writeMeta(meta)
      this.#waiting[meta.tier].push(meta)
    }
    await this.#sweep()
    this.#pump()
  }

  // what a job's files keep: its input until it finishes, then its result or error
  async #keptBytes(meta: JobMeta): Promise<number> {
    if (!isFinished(meta.status)) return this.#files.bytes(meta.id, 'input')
    if (meta.status === 'completed') return this.#files.bytes(meta.id, 'result')
    return meta.error ? Buffer.byteLength(JSON.stringify(meta.error)) : 0
  }

  #take(workspaceId: string, id: string): void {
    let ids = this.#inFlight.get(workspaceId)
    if (!ids) {
      ids = new Set()
      this.#inFlight.set(workspaceId, ids)
    }
    ids.add(id)
  }

  #leave(workspaceId: string, id: string): void {
    const ids = this.#inFlight.get(workspaceId)
    ids?.delete(id)
    if (ids?.size === 0) this.#inFlight.delete(workspaceId)
  }

  async enqueue(job: NewJob, input: Uint8Array, maxInFlight?: number): Promise<void> {
    if (this.#closed)
      throw new AppError('ERR_UNAVAILABLE', 'The server is shutting down.', undefined, { 'retry-after': '1' })
    // checked and taken before the first await, so concurrent submissions cannot all pass the check
    const inFlight = this.#inFlight.get(job.workspace_id)?.size ?? 0
    if (maxInFlight !== undefined && inFlight >= maxInFlight)
      throw capExceeded('max_jobs_in_flight', maxInFlight)
    const bytes = jobBytes(input.byteLength)
    const max = { workspace: job.max_job_storage_bytes, store: this.#o.maxStorageBytes }
    const room = this.#ledger.reserve(job.workspace_id, job.id, bytes, max)
    if (!room.ok) {
      this.#o.metrics.storageRefused.inc({ limit: room.limit, stage: 'submit' })
      throw submitRefused(room)
    }
    this.#take(job.workspace_id, job.id)
    const meta: JobMeta = { ...job, status: 'queued', attempts: 0, stalls: 0 }
    try {
      await this.#files.writeInput(job.id, input)
      await this.#files.writeMeta(meta)
    } catch (err) {
      this.#leave(job.workspace_id, job.id)
      this.#ledger.release(job.id)
      throw err
    }
    this.#jobs.set(job.id, meta)
    this.#index.added(meta)
    this.#waiting[job.tier].push(meta)
    this.#pump()
  }

  async read(workspaceId: string, id: string): Promise<StoredJob | undefined> {
    const meta = this.#jobs.get(id)
    if (!meta || meta.workspace_id !== workspaceId) return undefined
    const snapshot = { ...meta }
    if (snapshot.status !== 'completed') return { meta: snapshot }
    const result = await this.#files.readResult(id)
    return result === undefined ? { meta: snapshot } : { meta: snapshot, result }
  }

  async forget(workspaceId: string, id: string): Promise<void> {
    const meta = this.#jobs.get(id)
    if (!meta || meta.workspace_id !== workspaceId) return
    await this.#forget([meta])
  }

  // drops jobs and their files (one still running stays: its run writes its files first)
  async #forget(metas: readonly JobMeta[]): Promise<void> {
    const gone = metas.filter(
      (m) => this.#jobs.get(m.id) === m && (isFinished(m.status) || !this.#running.has(m.id)),
    )
    this.#index.removed(gone)
    for (const meta of gone) {
      this.#jobs.delete(meta.id)
      this.#leave(meta.workspace_id, meta.id)
      this.#ledger.release(meta.id)
      if (meta.status === 'queued')
        this.#waiting[meta.tier] = this.#waiting[meta.tier].filter((m) => m.id !== meta.id)
      if (meta.status === 'completed' || meta.status === 'failed') this.#done[meta.tier][meta.status]--
    }
    await Promise.all(gone.map((meta) => this.#files.remove(meta.id)))
  }

  // a page in O(page): src/jobs/embedded/job-index.ts
  async list(workspaceId: string, query: JobListQuery): Promise<Page<JobMeta> | undefined> {
    return this.#index.page(workspaceId, query, this.#jobs, this.#inFlight.get(workspaceId))
  }

  async cancel(workspaceId: string, id: string, now: number): Promise<CancelReply> {
    const meta = this.#jobs.get(id)
    if (!meta || meta.workspace_id !== workspaceId) return { state: 'gone' }
    if (isFinished(meta.status)) return { state: 'finished', meta: { ...meta } }
    const running = this.#running.get(id)
    if (meta.status === 'active' && running) {
      // the run is aborted now; #run records the job cancelled when the pool task has stopped
      meta.cancel_requested_at ??= now
      await this.#files.writeMeta(meta)
      running.cancel.abort()
      return { state: 'requested', meta: { ...meta } }
    }
    this.#waiting[meta.tier] = this.#waiting[meta.tier].filter((m) => m.id !== id)
    await this.#cancelled(meta)
    return { state: 'cancelled', meta: { ...this.#jobs.get(id)! } }
  }

  // finished as cancelled: kept for the result TTL like any other outcome, its input dropped
  async #cancelled(meta: JobMeta): Promise<void> {
    const finishedAt = this.#o.clock()
    meta.status = 'cancelled'
    meta.finished_at = finishedAt
    meta.expires_at = finishedAt + this.#o.resultTtlSeconds * 1000
    await this.#files.writeMeta(meta)
    this.#jobs.set(meta.id, meta)
    this.#index.finished(meta)
    this.#leave(meta.workspace_id, meta.id)
    await this.#files.removeInput(meta.id)
    // its input gone: the record alone is counted, until it expires
    this.#ledger.set(meta.workspace_id, meta.id, JOB_RECORD_BYTES)
  }

  async depth(): Promise<QueueDepth> {
    const depth = emptyDepth()
    for (const tier of TIERS) depth[tier].waiting = this.#waiting[tier].length
    for (const { tier } of this.#running.values()) depth[tier].active++
    for (const tier of TIERS) {
      depth[tier].completed = this.#done[tier].completed
      depth[tier].failed = this.#done[tier].failed
    }
    for (const tier of this.#delayed.values()) depth[tier].delayed++
    return depth
  }

  // both drop the jobs expired since the last sweep first, so the counts are exact when read
  async storedBytes(workspaceId: string): Promise<number> {
    await this.#sweep()
    return this.#ledger.held(workspaceId)
  }

  async storage(): Promise<StorageUse> {
    await this.#sweep()
    return { bytes: this.#ledger.total, max: this.#o.maxStorageBytes }
  }

  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#sweeper)
    for (const timer of this.#delayed.keys()) clearTimeout(timer)
    // running jobs are stopped and left queued on disk: the next start runs them again
    for (const run of this.#running.values()) run.stop.abort()
    await Promise.all([...this.#running.values()].map((r) => r.done))
    await this.#files.idle()
  }

  #pump(): void {
    if (this.#closed) return
    for (const tier of TIERS) {
      const waiting = this.#waiting[tier]
      let running = [...this.#running.values()].filter((r) => r.tier === tier).length
      while (running < this.#o.concurrency[tier] && waiting.length > 0) {
        // bigger plans first, then first come first served
        let next = 0
        for (let i = 1; i < waiting.length; i++)
          if (planPriority(waiting[i]!.plan) < planPriority(waiting[next]!.plan)) next = i
        const [meta] = waiting.splice(next, 1)
        this.#start(meta!)
        running++
      }
    }
  }

  #start(meta: JobMeta): void {
    // cancelled while it waited for a retry of a busy pool
    if (meta.status === 'cancelled') return
    const stop = new AbortController()
    const cancel = new AbortController()
    const done = this.#run(meta, stop.signal, cancel.signal)
      .catch((err: unknown) => this.#o.log('job run failed', { job: meta.id, err: String(err) }))
      .finally(() => {
        this.#running.delete(meta.id)
        this.#pump()
      })
    this.#running.set(meta.id, { tier: meta.tier, stop, cancel, done })
  }

  async #run(meta: JobMeta, stop: AbortSignal, cancel: AbortSignal): Promise<void> {
    meta.status = 'active'
    meta.started_at = this.#o.clock()
    meta.attempts++
    const ranAt = performance.now()
    // what the operation reports of its progress goes to the record (in memory: GET reads it there)
    const probe = new ProgressProbe()
    const watch = setInterval(() => {
      const fraction = probe.value()
      if (fraction !== undefined && fraction > (meta.progress ?? 0)) meta.progress = fraction
    }, this.#o.progressIntervalMs)
    let outcome: JobOutcome
    try {
      await this.#files.writeMeta(meta)
      const input = await this.#files.readInput(meta.id)
      outcome = await runJob(this.#o.pools, meta, input, AbortSignal.any([stop, cancel]), probe)
    } catch (err) {
      // DELETE /v1/jobs/{id} stopped it (not a shutdown): its outcome is cancelled
      if (cancel.aborted && !stop.aborted) return this.#cancelled(meta)
      if (!stop.aborted && !(err instanceof PoolBusyError)) {
        // the job's own files failed it (unreadable input): it cannot run, now or later
        const error = { code: 'ERR_INTERNAL', message: ERRORS.ERR_INTERNAL.message }
        return this.#finish(meta, { status: 'failed', reason: 'crash', error, cause: err }, undefined)
      }
      // not finished: shutting down or the pool is full; queued again, without using an attempt
      meta.status = 'queued'
      meta.attempts--
      await this.#files.writeMeta(meta)
      if (err instanceof PoolBusyError) this.#retryLater(meta)
      return
    } finally {
      clearInterval(watch)
    }
    await this.#finish(meta, outcome, performance.now() - ranAt)
  }

  #retryLater(meta: JobMeta): void {
    const timer = setTimeout(() => {
      this.#delayed.delete(timer)
      this.#waiting[meta.tier].unshift(meta)
      this.#pump()
    }, RETRY_BUSY_MS)
    this.#delayed.set(timer, meta.tier)
  }

  // A result is kept only when the workspace's job storage (its budget when the job was submitted) and the
  // disk's have room for it in place of the input; otherwise the job fails and keeps its error instead.
  #room(meta: JobMeta, outcome: JobOutcome): JobOutcome {
    if (outcome.status !== 'completed') return outcome
    const bytes = jobBytes(outcomeBytes(outcome))
    const max = {
      workspace: meta.max_job_storage_bytes ?? Number.MAX_SAFE_INTEGER,
      store: this.#o.maxStorageBytes,
    }
    const room = this.#ledger.reserve(meta.workspace_id, meta.id, bytes, max)
    if (room.ok) return outcome
    this.#o.metrics.storageRefused.inc({ limit: room.limit, stage: 'result' })
    return resultRefused(room)
  }

  // the result lands on disk before the record says completed, and the input goes last
  async #finish(meta: JobMeta, ran: JobOutcome, durationMs: number | undefined): Promise<void> {
    const outcome = this.#room(meta, ran)
    // an error (a failure, or a result without room) is counted as the record keeps it
    if (outcome.status === 'failed')
      this.#ledger.set(meta.workspace_id, meta.id, jobBytes(outcomeBytes(outcome)))
    const finishedAt = this.#o.clock()
    const finished: JobMeta = {
      ...meta,
      status: outcome.status,
      finished_at: finishedAt,
      expires_at: finishedAt + this.#o.resultTtlSeconds * 1000,
    }
    if (outcome.status === 'failed') finished.error = outcome.error
    if (outcome.status === 'completed') await this.#files.writeResult(meta.id, outcome.result)
    await this.#files.writeMeta(finished)
    recordOutcome(this.#o.metrics, meta.operation, outcome, durationMs)
    this.#jobs.set(meta.id, finished)
    this.#index.finished(finished)
    this.#done[finished.tier][outcome.status]++
    this.#leave(meta.workspace_id, meta.id)
    await this.#files.removeInput(meta.id)
    if (outcome.status === 'failed' && outcome.cause) {
      this.#o.log('job crashed its worker thread', { job: meta.id, err: String(outcome.cause) })
    }
  }

  // the jobs that expired since the last sweep, from the front of the expiry queue (no scan)
  async #sweep(): Promise<void> {
    await this.#forget(this.#index.expired(this.#o.clock())).catch(() => {})
  }
}
