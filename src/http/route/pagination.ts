import { z } from 'zod'
import { AppError } from '../../errors.ts'
import type { Page, PageRequest } from '../../store/types.ts'

// Every list answers one shape (Stripe's, inside the success envelope): {ok: true, data: {data: [...],
// has_more}}, newest first; the next page is ?starting_after=<id of the last item> (docs/api.md).
export const DEFAULT_PAGE_LIMIT = 20
export const MAX_PAGE_LIMIT = 100

export const pageQueryFields = {
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_LIMIT)
    .default(DEFAULT_PAGE_LIMIT)
    .describe(`Items per page, 1–${MAX_PAGE_LIMIT} (default ${DEFAULT_PAGE_LIMIT})`),
  starting_after: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('The id of the last item of the previous page: answers the items after it'),
}

export const pageQuery = z.strictObject(pageQueryFields)

export function listSchema<T extends z.ZodType>(item: T, what: string) {
  return z.object({
    data: z.array(item).describe(`${what}, newest first`),
    has_more: z.boolean().describe('Whether more items follow: ask again with starting_after = the last id'),
  })
}

export function pageRequest(query: { limit: number; starting_after?: string | undefined }): PageRequest {
  return { limit: query.limit, startingAfter: query.starting_after }
}

// A page from the store, or the 400 for a cursor the list does not hold (never an empty page: a client
// paging with a stale or mistyped id must be told)
export function pageOrRefuse<T>(page: Page<T> | undefined, cursor: string | undefined): Page<T> {
  if (page) return page
  throw new AppError('ERR_VALIDATION', `No item ${cursor} in this list.`, {
    issues: [{ path: 'starting_after', message: 'is not the id of an item of this list' }],
  })
}
