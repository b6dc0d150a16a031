import type { Cluster, Redis } from 'ioredis'
import { defineCommands } from '../../store/redis/commands.ts'
import type { Reservation, StorageBudgets } from '../storage.ts'
import { bullPrefix } from './layout.ts'

export type LedgerOp = 'reserve' | 'set' | 'release' | 'read'

export interface LedgerTotals {
  workspace: number
  store: number
}

// The job storage ledger on Redis (job-bytes.lua): one entry per job, totals per workspace and for the
// store, beside BullMQ's keys, under a hash tag of their own ({bytes}: one cluster slot).
export class JobLedger {
  #client: Redis | Cluster
  #keys: [string, string, string]

  constructor(client: Redis | Cluster, prefix: string) {
    defineCommands(client, new URL('./', import.meta.url), ['anvilJobBytes'])
    this.#client = client
    // a hash tag of their own: the three keys share one cluster slot (the queues' names are tags too)
    const at = `${bullPrefix(prefix)}:{bytes}`
    this.#keys = [`${at}:expiry`, `${at}:size`, `${at}:total`]
  }

  async #call(
    op: LedgerOp,
    now: number,
    workspaceId: string,
    jobId = '',
    bytes = 0,
    expiresAt = 0,
    max: StorageBudgets = { workspace: 0, store: undefined },
  ) {
    return this.#client.anvilJobBytes(
      ...this.#keys,
      op,
      now,
      workspaceId,
      jobId,
      bytes,
      expiresAt,
      max.workspace,
      max.store ?? -1,
    )
  }

  // grows (or shrinks) a job's count when both budgets have room; the record expires at expiresAt
  async reserve(
    workspaceId: string,
    jobId: string,
    bytes: number,
    expiresAt: number,
    max: StorageBudgets,
    now: number,
  ): Promise<Reservation> {
    const reply = await this.#call('reserve', now, workspaceId, jobId, bytes, expiresAt, max)
    if (reply[0] === 1) return { ok: true }
    const workspace = reply[1] === 'workspace'
    return {
      ok: false,
      limit: workspace ? 'max_job_storage_bytes' : 'store',
      max: workspace ? max.workspace : max.store!,
      stored: Number(reply[workspace ? 2 : 3]),
      bytes,
    }
  }

  // a job's count as its record now holds it, whatever the budgets
  async set(workspaceId: string, jobId: string, bytes: number, expiresAt: number, now: number) {
    await this.#call('set', now, workspaceId, jobId, bytes, expiresAt)
  }

  async release(workspaceId: string, jobId: string, now: number): Promise<void> {
    await this.#call('release', now, workspaceId, jobId)
  }

  async read(workspaceId: string, now: number): Promise<LedgerTotals> {
    const reply = await this.#call('read', now, workspaceId)
    return { workspace: Number(reply[1]), store: Number(reply[2]) }
  }
}
