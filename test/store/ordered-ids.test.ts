import fc from 'fast-check'
import { expect, it } from 'vitest'
import { OrderedIds } from '../../src/store/ordered-ids.ts'
import { newestFirst, pageOf } from '../../src/store/page.ts'

// The embedded stores' ordered lists page exactly like sorting everything and slicing (page.ts), ties in
// creation time included, whatever order the ids were added in.
it('pages as a full sort would, from any cursor', () => {
  const entry = fc.record({
    created_at: fc
      .integer({ min: 0, max: 20 })
      .map((n) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString()),
    id: fc.stringMatching(/^[a-z0-9]{1,4}$/),
  })
  fc.assert(
    fc.property(
      fc.uniqueArray(entry, { selector: (e) => e.id, maxLength: 40 }),
      fc.nat(),
      fc.integer({ min: 1, max: 7 }),
      (entries, pick, limit) => {
        const ids = new OrderedIds()
        for (const e of entries) ids.add(e)
        // adding again changes nothing
        for (const e of entries.slice(0, 3)) ids.add({ ...e, created_at: '2030-01-01T00:00:00.000Z' })
        expect(ids.size).toBe(entries.length)
        const sorted = [...entries].sort(newestFirst)
        const cursor = entries.length > 0 && pick % 3 !== 0 ? entries[pick % entries.length]!.id : undefined
        const expected = pageOf(sorted, { limit, startingAfter: cursor })
        const page = ids.page({ limit, startingAfter: cursor })
        expect(page).toEqual(
          expected && { data: expected.data.map((e) => e.id), has_more: expected.has_more },
        )
      },
    ),
  )
  expect(new OrderedIds().page({ limit: 2, startingAfter: 'x' })).toBeUndefined()
})

// Deleting (few ids by search, many in one pass) leaves the same list as never adding them, and
// olderThan walks it newest first from any cursor, one in the list or not.
it('deletes and walks older ids as a full sort would', () => {
  const entry = fc.record({
    created_at: fc.integer({ min: 0, max: 20 }).map((n) => String(n).padStart(4, '0')),
    id: fc.stringMatching(/^[a-z0-9]{1,4}$/),
  })
  fc.assert(
    fc.property(
      fc.uniqueArray(entry, { selector: (e) => e.id, maxLength: 40 }),
      fc.array(fc.nat(), { maxLength: 30 }),
      entry,
      (entries, picks, cursor) => {
        const ids = new OrderedIds()
        for (const e of entries) ids.add(e)
        const gone = new Set((entries.length > 0 ? picks : []).map((p) => entries[p % entries.length]!.id))
        ids.delete(gone)
        const kept = entries.filter((e) => !gone.has(e.id)).sort(newestFirst)
        expect(ids.size).toBe(kept.length)
        expect([...ids.olderThan()]).toEqual(kept.map((e) => e.id))
        const older = kept.filter((e) => newestFirst(cursor, e) < 0).map((e) => e.id)
        expect([...ids.olderThan(cursor)]).toEqual(older)
      },
    ),
  )
})
