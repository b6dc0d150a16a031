import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { MemoryGate } from '../../src/exec/memory-gate.ts'

const MiB = 2 ** 20

describe('MemoryGate', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('grants at once within the budget, up to the budget exactly, and nothing for tasks that declare none', () => {
    const gate = new MemoryGate(128 * MiB)
    expect(gate.acquire('a', 64 * MiB, 0)).toBe(true)
    expect(gate.acquire('b', 64 * MiB, 0)).toBe(true)
    expect(gate.used).toBe(128 * MiB)
    expect(gate.acquire('c', 0, 0)).toBe(true)
    gate.release('a', 64 * MiB)
    gate.release('b', 64 * MiB)
    expect(gate.used).toBe(0)
    expect(gate.tenants).toBe(0)
  })

  it('refuses at once a request larger than the whole budget, or one past it with no wait allowed', async () => {
    const gate = new MemoryGate(128 * MiB)
    expect(await gate.acquire('a', 128 * MiB + 1, 10_000)).toBe(false)
    expect(gate.acquire('a', 100 * MiB, 0)).toBe(true)
    expect(await gate.acquire('b', 29 * MiB, 0)).toBe(false)
    expect(gate.tenants).toBe(1)
  })

  it('a request that does not fit waits, and runs when memory comes free; past its wait it is refused', async () => {
    vi.useFakeTimers()
    const gate = new MemoryGate(128 * MiB)
    gate.acquire('a', 128 * MiB, 0)
    const waiting = gate.acquire('b', 64 * MiB, 1_000) as Promise<boolean>
    const late = gate.acquire('c', 64 * MiB, 500) as Promise<boolean>
    expect(gate.waiting).toBe(2)
    vi.advanceTimersByTime(600)
    expect(await late).toBe(false)
    gate.release('a', 128 * MiB)
    expect(await waiting).toBe(true)
    expect(gate.used).toBe(64 * MiB)
    expect(gate.waiting).toBe(0)
  })

  it('gives freed memory to the waiting workspace holding the least, and a small request never overtakes a large one', async () => {
    const gate = new MemoryGate(100 * MiB)
    gate.acquire('a', 60 * MiB, 0)
    gate.acquire('b', 40 * MiB, 0)
    const order: string[] = []
    const b = (gate.acquire('b', 10 * MiB, 10_000) as Promise<boolean>).then(() => order.push('b'))
    const c = (gate.acquire('c', 70 * MiB, 10_000) as Promise<boolean>).then(() => order.push('c'))
    // 60 MiB free: 'c' holds nothing, so it is next, and needs 70; 'b' (10) does not pass it
    gate.release('a', 60 * MiB)
    await Promise.resolve()
    expect(order).toEqual([])
    expect(gate.used).toBe(40 * MiB)
    // 100 MiB free: both hold nothing now; 'b' has waited longer, then 'c' fits too
    gate.release('b', 40 * MiB)
    await Promise.all([b, c])
    expect(order).toEqual(['b', 'c'])
    expect(gate.used).toBe(80 * MiB)
  })

  it('a newcomer that would fit waits behind those already waiting', async () => {
    const gate = new MemoryGate(128 * MiB)
    gate.acquire('a', 100 * MiB, 0)
    const b = gate.acquire('b', 64 * MiB, 10_000)
    const d = gate.acquire('d', 20 * MiB, 10_000)
    expect(d).not.toBe(true)
    expect(gate.used).toBe(100 * MiB)
    gate.release('a', 100 * MiB)
    expect(await b).toBe(true)
    expect(await d).toBe(true)
    expect(gate.used).toBe(84 * MiB)
  })

  it('never grants more than its budget, whatever the order of requests and releases', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 40 }), fc.boolean()), {
          maxLength: 60,
        }),
        async (steps) => {
          const gate = new MemoryGate(64)
          const held: [string, number][] = []
          const pending: Promise<unknown>[] = []
          for (const [workspace, bytes, release] of steps) {
            if (release && held.length > 0) {
              const [w, b] = held.shift()!
              gate.release(w, b)
            } else {
              const granted = gate.acquire(workspace, bytes, 5)
              if (granted === true) held.push([workspace, bytes])
              else pending.push(granted.then((ok) => ok && held.push([workspace, bytes])))
            }
            expect(gate.used).toBeLessThanOrEqual(64)
            await Promise.resolve()
          }
          await Promise.all(pending)
          for (const [w, b] of held.splice(0)) gate.release(w, b)
          expect(gate.used).toBe(0)
          expect(gate.tenants).toBe(0)
        },
      ),
      { numRuns: 60 },
    )
  })
})
