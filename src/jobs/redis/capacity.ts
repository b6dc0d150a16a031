import type { Cluster, Redis } from 'ioredis'

// The share of Redis's maxmemory job data may take when JOBS_MAX_STORAGE_BYTES is not set (docs/jobs.md,
// "Job storage"): on a Redis of their own (JOBS_REDIS_URL) three quarters, the rest for BullMQ's
// bookkeeping, the client buffers of large bodies and results in transit, and the allocator; on the Redis
// that also decides limits, half, so that the limit and key data always have room: at the budget jobs
// are refused (503 ERR_JOB_STORAGE_FULL) long before Redis refuses a write.
export const OWN_REDIS_SHARE = 3 / 4
export const SHARED_REDIS_SHARE = 1 / 2

// maxmemory from INFO memory (readable where CONFIG is not, as on managed Redis); 0 means none
export function maxmemoryOf(info: string): number {
  const match = /^maxmemory:(\d+)\r?$/m.exec(info)
  return match ? Number(match[1]) : 0
}

export function shareOf(maxmemory: number, sharedWithLimits: boolean): number | undefined {
  if (maxmemory <= 0) return undefined
  return Math.floor(maxmemory * (sharedWithLimits ? SHARED_REDIS_SHARE : OWN_REDIS_SHARE))
}

// The store's job storage budget: the setting when given, else the share of the jobs Redis's maxmemory
// (on a cluster, the node that answers: every node is expected to have the same); undefined when Redis
// has no maxmemory (then only the workspaces' budgets bound job data).
export async function storageBudget(
  client: Redis | Cluster,
  configured: number | undefined,
  sharedWithLimits: boolean,
): Promise<number | undefined> {
  if (configured !== undefined) return configured
  return shareOf(maxmemoryOf(await client.info('memory')), sharedWithLimits)
}
