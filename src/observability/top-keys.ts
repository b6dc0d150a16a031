// A per-key rate with bounded labels: the `top` keys with the most events over the last window, by id,
// and everything else as one "other" series. Metric labels must stay few (docs/operations.md), and an API
// key id is unbounded; this keeps at most `top` + 1 ids per outcome at any scrape, and at most `capacity`
// ids in memory per slot of the window (the ids past it count as "other" from the start).
// Used for password verifications, watched as a login endpoint is (issue 38): one key hammering
// /v1/password/verify with wrong passwords shows as its own line.

export const OTHER_KEYS = 'other'

interface Slot {
  start: number
  counts: Map<string, number[]>
  other: number[]
}

export interface TopKeysOptions {
  // the outcomes counted per key (a label of the series)
  outcomes: readonly string[]
  top?: number
  capacity?: number
  windowMs?: number
  slots?: number
  now?: () => number
}

export class TopKeys {
  readonly outcomes: readonly string[]
  readonly top: number
  readonly capacity: number
  readonly windowMs: number
  readonly #slotMs: number
  readonly #slots: Slot[] = []
  readonly #now: () => number

  constructor(options: TopKeysOptions) {
    this.outcomes = options.outcomes
    this.top = options.top ?? 10
    this.capacity = options.capacity ?? 1000
    this.windowMs = options.windowMs ?? 60_000
    this.#slotMs = this.windowMs / (options.slots ?? 6)
    this.#now = options.now ?? Date.now
  }

  add(keyId: string, outcome: string): void {
    const index = this.outcomes.indexOf(outcome)
    if (index < 0) return
    const slot = this.#current()
    let counts = slot.counts.get(keyId)
    if (!counts) {
      if (slot.counts.size >= this.capacity) {
        slot.other[index]!++
        return
      }
      counts = this.outcomes.map(() => 0)
      slot.counts.set(keyId, counts)
    }
    counts[index]!++
  }

  // Per key, its events per second over the window by outcome: the `top` keys by all their events, then
  // "other" for the rest (present when anything was counted).
  rates(): { keyId: string; perSecond: number[] }[] {
    const now = this.#now()
    const live = this.#slots.filter((s) => s.start > now - this.windowMs)
    const totals = new Map<string, number[]>()
    const other = this.outcomes.map(() => 0)
    for (const slot of live) {
      for (const [keyId, counts] of slot.counts) {
        const sum = totals.get(keyId) ?? this.outcomes.map(() => 0)
        counts.forEach((c, i) => {
          sum[i]! += c
        })
        totals.set(keyId, sum)
      }
      slot.other.forEach((c, i) => {
        other[i]! += c
      })
    }
    const all = (counts: number[]) => counts.reduce((a, b) => a + b, 0)
    const ranked = [...totals].sort((a, b) => all(b[1]) - all(a[1]) || (a[0] < b[0] ? -1 : 1))
    for (const [, counts] of ranked.slice(this.top)) {
      counts.forEach((c, i) => {
        other[i]! += c
      })
    }
    const seconds = this.windowMs / 1000
    const rows = ranked.slice(0, this.top).map(([keyId, counts]) => ({
      keyId,
      perSecond: counts.map((c) => c / seconds),
    }))
    if (ranked.length > this.top || all(other) > 0)
      rows.push({ keyId: OTHER_KEYS, perSecond: other.map((c) => c / seconds) })
    return rows
  }

  // the slot the current time falls in, dropping the slots that left the window
  #current(): Slot {
    const now = this.#now()
    const start = now - (now % this.#slotMs)
    while (this.#slots.length > 0 && this.#slots[0]!.start <= now - this.windowMs) this.#slots.shift()
    let slot = this.#slots.at(-1)
    if (slot?.start !== start) {
      slot = { start, counts: new Map(), other: this.outcomes.map(() => 0) }
      this.#slots.push(slot)
    }
    return slot
  }
}
