import { readFileSync } from 'node:fs'
import type { Cluster, Redis, Result } from 'ioredis'
import type { PlanName } from '../../limits/plans.ts'
import {
  type JobError,
  type JobMeta,
  type JobOperation,
  type JobOutcome,
  type JobStatus,
  type NewJob,
  PENDING_TTL_MS,
  type StoredJob,
  type Tier,
} from '../types.ts'
import { recordKey } from './layout.ts'

const SCRIPTS = {
  anvilJobStart: 'job-start.lua',
  anvilJobFinish: 'job-finish.lua',
  anvilJobRequeue: 'job-requeue.lua',
} as const

const sources = Object.fromEntries(
  Object.entries(SCRIPTS).map(([name, file]) => [name, readFileSync(new URL(file, import.meta.url), 'utf8')]),
)

declare module 'ioredis' {
  interface RedisCommander<Context> {
    anvilJobStartBuffer(record: string, now: number, stalls: number): Result<Buffer[], Context>
    anvilJobFinish(
      record: string,
      status: string,
      finishedAt: number,
      expiresAt: number,
      ttlMs: number,
      field: 'result' | 'error',
      value: string,
    ): Result<number, Context>
    anvilJobRequeue(record: string): Result<number, Context>
  }
}

const META_FIELDS = [
  'workspace_id',
  'operation',
  'plan',
  'tier',
  'budget_ms',
  'status',
  'created_at',
  'started_at',
  'finished_at',
  'expires_at',
  'attempts',
  'stalls',
  'error',
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
    status: f.status as JobStatus,
    created_at: Number(f.created_at),
    started_at: optionalNumber(f.started_at),
    finished_at: optionalNumber(f.finished_at),
    expires_at: optionalNumber(f.expires_at),
    attempts: Number(f.attempts ?? 0),
    stalls: Number(f.stalls ?? 0),
  }
  if (f.error) meta.error = JSON.parse(f.error) as JobError
  return meta
}

export type StartReply =
  | { state: 'gone' }
  | { state: 'finished' }
  | { state: 'run'; budgetMs: number; input: Uint8Array }

// A job's record: one hash under the workspace's hash tag, holding the status, the input until the job
// finishes and then the result. Every change that depends on the current status is one Lua script.
export class JobRecords {
  #client: Redis | Cluster
  #prefix: string

  constructor(client: Redis | Cluster, prefix: string) {
    for (const [name, lua] of Object.entries(sources)) client.defineCommand(name, { lua, numberOfKeys: 1 })
    this.#client = client
    this.#prefix = prefix
  }

  key(workspaceId: string, id: string): string {
    return recordKey(this.#prefix, workspaceId, id)
  }

  async create(job: NewJob, input: Uint8Array): Promise<void> {
    const key = this.key(job.workspace_id, job.id)
    const fields = {
      workspace_id: job.workspace_id,
      operation: job.operation,
      plan: job.plan,
      tier: job.tier,
      budget_ms: String(job.budget_ms),
      status: 'queued',
      created_at: String(job.created_at),
      attempts: '0',
      stalls: '0',
      input: Buffer.from(input.buffer, input.byteOffset, input.byteLength),
    }
    const replies = await this.#client.multi().hset(key, fields).pexpire(key, PENDING_TTL_MS).exec()
    const failed = replies?.find(([err]) => err)
    if (!replies || failed) throw failed?.[0] ?? new Error('job record transaction aborted')
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
    const reply = await this.#client.anvilJobStartBuffer(this.key(workspaceId, id), now, stalls)
    if (reply.length === 1) return { state: 'finished' }
    // a record without its input cannot run either (Lua drops a trailing nil from the reply)
    if (reply.length < 3) return { state: 'gone' }
    return { state: 'run', budgetMs: Number(reply[1]!.toString()), input: reply[2]! }
  }

  // true when this call recorded the outcome (the first finisher); the record then lives ttlMs
  async finish(workspaceId: string, id: string, outcome: JobOutcome, now: number, ttlMs: number) {
    const [field, value] =
      outcome.status === 'completed'
        ? (['result', outcome.result] as const)
        : (['error', JSON.stringify(outcome.error)] as const)
    const key = this.key(workspaceId, id)
    const done = await this.#client.anvilJobFinish(key, outcome.status, now, now + ttlMs, ttlMs, field, value)
    return done === 1
  }

  async requeue(workspaceId: string, id: string): Promise<void> {
    await this.#client.anvilJobRequeue(this.key(workspaceId, id))
  }

  async forget(workspaceId: string, id: string): Promise<void> {
    await this.#client.del(this.key(workspaceId, id))
  }
}
