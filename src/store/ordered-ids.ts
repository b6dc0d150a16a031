import type { Page, PageRequest } from './types.ts'

interface Entry {
  created_at: string
  id: string
}

// before(a, b): a sorts before b oldest first (creation time, then id), the reverse of newestFirst in page.ts
const before = (a: Entry, b: Entry) =>
  a.created_at < b.created_at || (a.created_at === b.created_at && a.id < b.id)

// The ids of one list in creation order, for the embedded stores: what a sorted set by creation time is on
// Redis. A page is a binary search for its cursor and a slice of `limit` ids, whatever the list's length.
// Records are created in time order, so an add is nearly always an append.
export class OrderedIds {
  // oldest first: a page, newest first, is read backwards from the end
  #entries: Entry[] = []
  #createdAt = new Map<string, string>()

  get size(): number {
    return this.#entries.length
  }

  add(item: Entry): void {
    if (this.#createdAt.has(item.id)) return
    const entry = { created_at: item.created_at, id: item.id }
    this.#createdAt.set(entry.id, entry.created_at)
    const at = this.#indexOf(entry)
    if (at === this.#entries.length) this.#entries.push(entry)
    else this.#entries.splice(at, 0, entry)
  }

  // the index `entry` has (or would take) in the oldest-first order
  #indexOf(entry: Entry): number {
    let lo = 0
    let hi = this.#entries.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (before(this.#entries[mid]!, entry)) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  // Removes these ids (jobs that expired): each found by a binary search when they are few, the list
  // rebuilt in one pass when they are many.
  delete(ids: ReadonlySet<string>): void {
    if (ids.size <= 8) {
      for (const id of ids) {
        const created = this.#createdAt.get(id)
        if (created === undefined) continue
        this.#createdAt.delete(id)
        this.#entries.splice(this.#indexOf({ created_at: created, id }), 1)
      }
      return
    }
    for (const id of ids) this.#createdAt.delete(id)
    this.#entries = this.#entries.filter((e) => this.#createdAt.has(e.id))
  }

  // The ids older than `cursor` (which need not be in this list; none: from the newest), newest first,
  // one at a time: a reader that keeps only some of them stops when it has a page.
  *olderThan(cursor?: Entry): Generator<string, void, undefined> {
    let at = cursor === undefined ? this.#entries.length : this.#indexOf(cursor)
    while (at > 0) yield this.#entries[--at]!.id
  }

  // A page of ids, newest first; undefined when the cursor is not in the list.
  page(page: PageRequest): Page<string> | undefined {
    let end = this.#entries.length
    if (page.startingAfter !== undefined) {
      const created = this.#createdAt.get(page.startingAfter)
      if (created === undefined) return undefined
      end = this.#indexOf({ created_at: created, id: page.startingAfter })
    }
    const start = Math.max(0, end - page.limit)
    const data = this.#entries
      .slice(start, end)
      .map((e) => e.id)
      .reverse()
    return { data, has_more: start > 0 }
  }
}
