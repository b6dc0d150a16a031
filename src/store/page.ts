import type { Page, PageRequest } from './types.ts'

// One page of a list already in newest-first order (the embedded store's lists, small bounded lists):
// undefined when the cursor is not in the list.
export function pageOf<T extends { id: string }>(newestFirst: T[], page: PageRequest): Page<T> | undefined {
  let start = 0
  if (page.startingAfter !== undefined) {
    const at = newestFirst.findIndex((item) => item.id === page.startingAfter)
    if (at === -1) return undefined
    start = at + 1
  }
  const data = newestFirst.slice(start, start + page.limit)
  return { data, has_more: start + page.limit < newestFirst.length }
}

// Newest first: creation time, then id (ids of one millisecond are random, but the order is total).
export function newestFirst<T extends { created_at: string; id: string }>(a: T, b: T): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}
