import { OrderedIds } from '../../store/ordered-ids.ts'
import type { Page } from '../../store/types.ts'
import { isFinished, type JobListQuery, type JobMeta, type JobStatus } from '../types.ts'

// The embedded backend's lists, so that a page of GET /v1/jobs costs its own items whatever the
// workspace holds (it copied and sorted every job of the workspace after scanning every workspace's:
// 229-540 ms a page at 200k finished jobs, issue 27). What a sorted set by creation time is on Redis:
// per workspace, every job in creation order, and each finished status apart (a job's status does not
// change once it has finished). Queued and running jobs are read from the workspace's jobs in flight,
// which max_jobs_in_flight bounds. Expired jobs are dropped in expiry order, never by a scan.

const orderOf = (meta: JobMeta) => ({ created_at: String(meta.created_at).padStart(16, '0'), id: meta.id })

const newestFirst = (a: JobMeta, b: JobMeta) =>
  b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

export class JobIndex {
  // workspace id → its jobs, any status
  #all = new Map<string, OrderedIds>()
  // `<workspace id> <status>` → its jobs finished with that status
  #finished = new Map<string, OrderedIds>()
  // finished jobs in the order they expire (finishing order, so nearly always an append), read from #head
  #expiring: JobMeta[] = []
  #head = 0

  #list(map: Map<string, OrderedIds>, key: string): OrderedIds {
    let ids = map.get(key)
    if (!ids) {
      ids = new OrderedIds()
      map.set(key, ids)
    }
    return ids
  }

  // a job accepted (or found on disk at boot)
  added(meta: JobMeta): void {
    this.#list(this.#all, meta.workspace_id).add(orderOf(meta))
    if (isFinished(meta.status)) this.finished(meta)
  }

  // a job that has its outcome (and expires_at)
  finished(meta: JobMeta): void {
    this.#list(this.#finished, `${meta.workspace_id} ${meta.status}`).add(orderOf(meta))
    const queue = this.#expiring
    let at = queue.length
    // finished out of expiry order only across a clock step: kept sorted by a short walk back
    while (at > this.#head && (queue[at - 1]!.expires_at ?? 0) > (meta.expires_at ?? 0)) at--
    queue.splice(at, 0, meta)
  }

  // the finished jobs whose expires_at is at or before `now`, taken out of the expiry queue
  expired(now: number): JobMeta[] {
    const queue = this.#expiring
    const out: JobMeta[] = []
    while (this.#head < queue.length && (queue[this.#head]!.expires_at ?? 0) <= now)
      out.push(queue[this.#head++]!)
    if (this.#head > 1024 && this.#head * 2 > queue.length) {
      this.#expiring = queue.slice(this.#head)
      this.#head = 0
    }
    return out
  }

  // jobs dropped (expired, or forgotten when read after their expiry)
  removed(metas: readonly JobMeta[]): void {
    const byList = new Map<OrderedIds, Set<string>>()
    const drop = (list: OrderedIds | undefined, id: string) => {
      if (!list) return
      let ids = byList.get(list)
      if (!ids) {
        ids = new Set()
        byList.set(list, ids)
      }
      ids.add(id)
    }
    for (const meta of metas) {
      drop(this.#all.get(meta.workspace_id), meta.id)
      drop(this.#finished.get(`${meta.workspace_id} ${meta.status}`), meta.id)
    }
    for (const [list, ids] of byList) list.delete(ids)
  }

  // A page of the workspace's jobs, newest first, without expired ones; undefined when the cursor is not
  // one of its (unexpired) jobs, whatever the status filter. `inFlight`: its queued and running jobs' ids.
  page(
    workspaceId: string,
    query: JobListQuery,
    jobs: ReadonlyMap<string, JobMeta>,
    inFlight: ReadonlySet<string> | undefined,
  ): Page<JobMeta> | undefined {
    const live = (meta: JobMeta | undefined): meta is JobMeta =>
      meta !== undefined &&
      meta.workspace_id === workspaceId &&
      (meta.expires_at === undefined || meta.expires_at > query.now)
    let cursor: JobMeta | undefined
    if (query.startingAfter !== undefined) {
      cursor = jobs.get(query.startingAfter)
      if (!live(cursor)) return undefined
    }
    const status: JobStatus | undefined = query.status
    let ids: Iterable<string>
    if (status === undefined) ids = this.#all.get(workspaceId)?.olderThan(cursor && orderOf(cursor)) ?? []
    else if (status === 'queued' || status === 'active') ids = this.#inFlight(jobs, inFlight, status, cursor)
    else ids = this.#finished.get(`${workspaceId} ${status}`)?.olderThan(cursor && orderOf(cursor)) ?? []
    const data: JobMeta[] = []
    let hasMore = false
    for (const id of ids) {
      const meta = jobs.get(id)
      if (!live(meta) || (status !== undefined && meta.status !== status)) continue
      if (data.length === query.limit) {
        hasMore = true
        break
      }
      data.push({ ...meta })
    }
    return { data, has_more: hasMore }
  }

  // the workspace's queued or running jobs older than the cursor, newest first (a few: max_jobs_in_flight)
  #inFlight(
    jobs: ReadonlyMap<string, JobMeta>,
    inFlight: ReadonlySet<string> | undefined,
    status: JobStatus,
    cursor: JobMeta | undefined,
  ): string[] {
    const metas: JobMeta[] = []
    for (const id of inFlight ?? []) {
      const meta = jobs.get(id)
      if (meta?.status === status && (!cursor || newestFirst(cursor, meta) < 0)) metas.push(meta)
    }
    return metas.sort(newestFirst).map((m) => m.id)
  }
}
