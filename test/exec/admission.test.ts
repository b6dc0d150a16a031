import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { PoolAdmission } from '../../src/exec/admission.ts'

function order(pool: PoolAdmission) {
  const admitted: string[] = []
  return {
    admitted,
    reserve(ws: string, name: string, waitMs = 1_000) {
      const r = pool.reserve(ws, waitMs)
      void r.admitted.then((ok) => ok && admitted.push(name))
      return r.reservation
    },
  }
}

// Places on a pool for large bodies still arriving: bounded wait, fair between workspaces, nothing leaks.
describe('pool admission', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('admits at once while there is room, then queues; first come first served within a workspace', async () => {
    const pool = new PoolAdmission(4)
    const a = pool.reserve('ws_a', 1_000)
    const b = pool.reserve('ws_b', 1_000)
    const c = pool.reserve('ws_c', 1_000)
    const d = pool.reserve('ws_c', 1_000)
    for (const r of [a, b, c, d]) expect(await r.admitted).toBe(true)
    const line = order(pool)
    const c1 = line.reserve('ws_c', 'c1')
    line.reserve('ws_c', 'c2')
    line.reserve('ws_c', 'c3')
    expect(pool.waiting).toBe(3)
    for (const r of [a, b]) {
      expect(pool.start(r.reservation)).toBe(true)
      pool.finish(r.reservation.workspaceId)
    }
    // two places free, but ws_c already has half the pool's places for bodies still arriving
    await vi.advanceTimersByTimeAsync(0)
    expect(line.admitted).toEqual([])
    expect(pool.full()).toBe(false)
    // c's body arrived and its task started: room for one more of ws_c's bodies
    expect(pool.start(c.reservation)).toBe(true)
    await vi.advanceTimersByTimeAsync(0)
    expect(line.admitted).toEqual(['c1'])
    pool.cancel(d.reservation)
    await vi.advanceTimersByTimeAsync(0)
    expect(line.admitted).toEqual(['c1', 'c2'])
    pool.cancel(c1)
    await vi.advanceTimersByTimeAsync(0)
    expect(line.admitted).toEqual(['c1', 'c2', 'c3'])
  })

  it('a newcomer never jumps the line, even when a place is free for a moment', () => {
    const pool = new PoolAdmission(2)
    const a = pool.reserve('ws_a', 1_000)
    pool.reserve('ws_b', 1_000)
    pool.reserve('ws_c', 1_000) // waits
    pool.cancel(a.reservation) // its place goes to the waiter, not to whoever comes next
    expect(pool.full()).toBe(true)
    expect(pool.start()).toBe(false)
    expect(pool.reserve('ws_d', 0).reservation.state).toBe('cancelled')
  })

  it('one workspace holds at most half the places for unfinished bodies: another is admitted at once', async () => {
    // the free pool of a 2-core machine: 1 thread + 8 queued
    const pool = new PoolAdmission(9)
    expect(pool.bodyShare).toBe(4)
    const flood = Array.from({ length: 9 }, () => pool.reserve('ws_flood', 1_000))
    expect(flood.filter((r) => r.reservation.state === 'reserved')).toHaveLength(4)
    expect(pool.waiting).toBe(5)
    expect(pool.full()).toBe(false)
    const other = pool.reserve('ws_other', 1_000)
    expect(other.reservation.state).toBe('reserved')
    expect(await other.admitted).toBe(true)
    // a body that finished arriving starts its task: its workspace may have another body arriving
    expect(pool.start(flood[0]!.reservation)).toBe(true)
    expect(pool.held('ws_flood')).toBe(5)
    expect(pool.waiting).toBe(4)
    // the flood's own line still refuses after the wait, leaving nothing behind
    await vi.advanceTimersByTimeAsync(1_000)
    expect(pool.waiting).toBe(0)
    for (const r of flood.slice(1)) pool.cancel(r.reservation)
    pool.finish('ws_flood')
    pool.cancel(other.reservation)
    expect(pool.tenants).toBe(0)
    expect(pool.reserved + pool.inFlight).toBe(0)
  })

  it('a place that comes free goes to the waiting workspace holding the fewest, not to the longest line', async () => {
    const pool = new PoolAdmission(4)
    // workspace A fills the pool with running tasks (no cap on tasks: they end within their budget)
    for (let i = 0; i < 4; i++) expect(pool.start(undefined, 'ws_a')).toBe(true)
    const line = order(pool)
    line.reserve('ws_a', 'a1')
    line.reserve('ws_a', 'a2')
    line.reserve('ws_a', 'a3')
    line.reserve('ws_b', 'b1') // came last, holds nothing
    line.reserve('ws_b', 'b2')
    pool.finish('ws_a')
    await vi.advanceTimersByTimeAsync(0)
    expect(line.admitted).toEqual(['b1'])
    // A holds 3, B holds 1: B again
    pool.finish('ws_a')
    await vi.advanceTimersByTimeAsync(0)
    expect(line.admitted).toEqual(['b1', 'b2'])
    // A holds 2, B holds 2: A's first, in its order
    pool.finish('ws_a')
    pool.finish('ws_a')
    await vi.advanceTimersByTimeAsync(0)
    expect(line.admitted).toEqual(['b1', 'b2', 'a1', 'a2'])
  })

  it('no starvation: with two long lines, places alternate between workspaces', async () => {
    const pool = new PoolAdmission(2)
    const line = order(pool)
    const running = [pool.reserve('ws_x', 0).reservation, pool.reserve('ws_y', 0).reservation]
    for (const r of running) pool.start(r)
    const reservations = new Map<string, ReturnType<typeof line.reserve>>()
    for (let i = 1; i <= 3; i++) reservations.set(`a${i}`, line.reserve('ws_a', `a${i}`, 60_000))
    for (let i = 1; i <= 3; i++) reservations.set(`b${i}`, line.reserve('ws_b', `b${i}`, 60_000))
    pool.finish('ws_x')
    pool.finish('ws_y')
    await vi.advanceTimersByTimeAsync(0)
    expect(line.admitted).toEqual(['a1', 'b1'])
    // each admitted body arrives, its task runs and ends, and its place goes to the other workspace
    for (let i = 0; i < 4; i++) {
      const done = reservations.get(line.admitted[i]!)!
      expect(pool.start(done)).toBe(true)
      pool.finish(done.workspaceId)
      await vi.advanceTimersByTimeAsync(0)
    }
    expect(line.admitted).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3'])
  })

  it('refuses after the wait, and a cancelled or timed-out request holds nothing', async () => {
    const pool = new PoolAdmission(2)
    const refusals: string[] = []
    const held = [pool.reserve('ws_a', 0), pool.reserve('ws_b', 0)]
    const late = pool.reserve('ws_c', 500, () => refusals.push('late'))
    const gone = pool.reserve('ws_c', 500, () => refusals.push('gone'))
    pool.cancel(gone.reservation)
    expect(await gone.admitted).toBe(false)
    await vi.advanceTimersByTimeAsync(500)
    expect(await late.admitted).toBe(false)
    expect(pool.waiting).toBe(0)
    // a refusal is reported (it counts as overload); a request that went away is not
    expect(refusals).toEqual(['late'])
    for (const h of held) pool.cancel(h.reservation)
    expect(pool.full()).toBe(false)
    expect(pool.tenants).toBe(0)
    expect(pool.reserve('ws_c', 0).reservation.state).toBe('reserved')
  })

  it('cancelling a reservation whose task is running changes nothing; finishing frees the place', () => {
    const pool = new PoolAdmission(1)
    const { reservation } = pool.reserve('ws_a', 0)
    expect(pool.start(reservation)).toBe(true)
    pool.cancel(reservation)
    expect(pool.inFlight).toBe(1)
    expect(pool.full()).toBe(true)
    pool.finish('ws_a')
    expect(pool.full()).toBe(false)
    expect(pool.tenants).toBe(0)
  })

  it("shares with the pool's threads how many requests are on it and how many have come (workers/memory.ts)", () => {
    const busy = new Int32Array(new SharedArrayBuffer(8))
    const pool = new PoolAdmission(2, 2, busy)
    const seen = () => [Atomics.load(busy, 0), Atomics.load(busy, 1)]
    // a body arriving: on the pool, and come
    const { reservation } = pool.reserve('ws_a', 0)
    expect(seen()).toEqual([1, 1])
    // its task starts: the same request, not a new one
    expect(pool.start(reservation)).toBe(true)
    expect(seen()).toEqual([1, 1])
    // a task with no reservation (a body the event loop parsed)
    expect(pool.start(undefined, 'ws_b')).toBe(true)
    expect(seen()).toEqual([2, 2])
    // a start refused on a full pool never came
    expect(pool.start(undefined, 'ws_b')).toBe(false)
    expect(seen()).toEqual([2, 2])
    pool.finish('ws_a')
    pool.finish('ws_b')
    // gone, but the count of those that came stays: a thread can tell one came and went between its looks
    expect(seen()).toEqual([0, 2])
    // a request refused at the door counts as come: a pool that requests keep coming to is not quiet
    pool.reserve('ws_c', 0)
    pool.reserve('ws_c', 0)
    expect(seen()).toEqual([1, 4])
  })

  it('with no wait, a full pool refuses at once', async () => {
    const pool = new PoolAdmission(1)
    pool.reserve('ws_a', 0)
    let refused = 0
    expect(await pool.reserve('ws_b', 0, () => refused++).admitted).toBe(false)
    expect(refused).toBe(1)
  })

  it('leaks nothing through any mix of admissions, starts, cancels and timeouts', async () => {
    const pool = new PoolAdmission(5)
    let seed = 7
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const live: { reservation: { state: string; workspaceId: string } }[] = []
    for (let step = 0; step < 2_000; step++) {
      const ws = `ws_${rand(4)}`
      const action = rand(5)
      if (action <= 1) live.push(pool.reserve(ws, rand(3) * 100))
      else if (action === 2 && live.length > 0) {
        const r = live.splice(rand(live.length), 1)[0]!
        if (r.reservation.state === 'reserved' && pool.start(r.reservation as never))
          pool.finish(r.reservation.workspaceId)
        else pool.cancel(r.reservation as never)
      } else if (action === 3 && live.length > 0) {
        pool.cancel(live.splice(rand(live.length), 1)[0]!.reservation as never)
      } else await vi.advanceTimersByTimeAsync(50)
      expect(pool.reserved + pool.inFlight).toBeLessThanOrEqual(pool.capacity)
      for (const w of ['ws_0', 'ws_1', 'ws_2', 'ws_3']) {
        expect(pool.held(w)).toBeLessThanOrEqual(pool.capacity)
      }
    }
    for (const r of live) pool.cancel(r.reservation as never)
    await vi.runAllTimersAsync()
    expect({
      reserved: pool.reserved,
      inFlight: pool.inFlight,
      waiting: pool.waiting,
      tenants: pool.tenants,
    }).toEqual({ reserved: 0, inFlight: 0, waiting: 0, tenants: 0 })
  })
})
