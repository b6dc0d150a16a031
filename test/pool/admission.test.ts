import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { PoolAdmission } from '../../src/pool/admission.ts'

// Places on a pool for large bodies still arriving: first come first served, bounded wait, nothing leaks.
describe('pool admission', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('admits at once while there is room, then queues in order', async () => {
    const pool = new PoolAdmission(2)
    const a = pool.reserve(1_000)
    const b = pool.reserve(1_000)
    expect(await a.admitted).toBe(true)
    expect(await b.admitted).toBe(true)
    const c = pool.reserve(1_000)
    const d = pool.reserve(1_000)
    expect(pool.waiting).toBe(2)
    const order: string[] = []
    void c.admitted.then((ok) => ok && order.push('c'))
    void d.admitted.then((ok) => ok && order.push('d'))
    expect(pool.start(a.reservation)).toBe(true)
    pool.finish()
    pool.cancel(b.reservation)
    await vi.runAllTimersAsync()
    expect(order).toEqual(['c', 'd'])
  })

  it('a newcomer never jumps the line, even when a place is free for a moment', () => {
    const pool = new PoolAdmission(1)
    const a = pool.reserve(1_000)
    pool.reserve(1_000) // waits
    pool.cancel(a.reservation) // its place goes to the waiter, not to whoever comes next
    expect(pool.full()).toBe(true)
    expect(pool.start()).toBe(false)
  })

  it('refuses after the wait, and a cancelled or timed-out request holds nothing', async () => {
    const pool = new PoolAdmission(1)
    const refusals: string[] = []
    const held = pool.reserve(0)
    const late = pool.reserve(500, () => refusals.push('late'))
    const gone = pool.reserve(500, () => refusals.push('gone'))
    pool.cancel(gone.reservation)
    expect(await gone.admitted).toBe(false)
    await vi.advanceTimersByTimeAsync(500)
    expect(await late.admitted).toBe(false)
    expect(pool.waiting).toBe(0)
    // a refusal is reported (it counts as overload); a request that went away is not
    expect(refusals).toEqual(['late'])
    pool.cancel(held.reservation)
    expect(pool.full()).toBe(false)
    expect(pool.reserve(0).reservation.state).toBe('reserved')
  })

  it('cancelling a reservation whose task is running changes nothing; finishing frees the place', () => {
    const pool = new PoolAdmission(1)
    const { reservation } = pool.reserve(0)
    expect(pool.start(reservation)).toBe(true)
    pool.cancel(reservation)
    expect(pool.inFlight).toBe(1)
    expect(pool.full()).toBe(true)
    pool.finish()
    expect(pool.full()).toBe(false)
  })

  it('with no wait, a full pool refuses at once', async () => {
    const pool = new PoolAdmission(1)
    pool.reserve(0)
    let refused = 0
    expect(await pool.reserve(0, () => refused++).admitted).toBe(false)
    expect(refused).toBe(1)
  })
})
