import { Registry } from 'prom-client'
import { afterEach, describe, expect, it } from 'vitest'
import type { Execution } from '../../src/exec/decide.ts'
import { createDispatcher } from '../../src/exec/dispatch.ts'
import { FairTurns } from '../../src/exec/fair-turns.ts'
import { createPoolMetrics } from '../../src/exec/metrics.ts'
import { createPools, type PoolSet } from '../../src/exec/pools.ts'
import { DEFAULT_PLANS } from '../../src/limits/plans.ts'
import { CATALOG } from '../../src/ops/catalog.ts'
import { opNamed } from '../helpers/ops.ts'

describe('FairTurns (round-robin across workspaces at the threads)', () => {
  it('hands out at most `threads` turns and serves waiting workspaces in turn', async () => {
    const turns = new FairTurns(1)
    const order: string[] = []
    await turns.acquire('a')
    const waits = [
      ...['a1', 'a2', 'a3', 'a4'].map((n) => turns.acquire('a').then(() => order.push(n))),
      ...['b1', 'b2'].map((n) => turns.acquire('b').then(() => order.push(n))),
    ]
    expect(turns.running).toBe(1)
    expect(turns.waiting).toBe(6)
    for (let i = 0; i < 6; i++) {
      turns.release()
      await Promise.resolve()
      await Promise.resolve()
    }
    await Promise.all(waits)
    // A queued four before B's two, yet B is served every other turn
    expect(order).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'a4'])
    turns.release()
    expect(turns.running).toBe(0)
  })

  it('a waiter whose signal aborts leaves the line with an AbortError', async () => {
    const turns = new FairTurns(1)
    await turns.acquire('a')
    const controller = new AbortController()
    const waiting = turns.acquire('b', controller.signal)
    controller.abort('queue-timeout')
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError', cause: 'queue-timeout' })
    expect(turns.waiting).toBe(0)
    turns.release()
    expect(turns.running).toBe(0)
    // nothing is left to hand the freed turn to
    await turns.acquire('c')
    expect(turns.running).toBe(1)
  })
})

describe('fair shares at dispatch, on a real pool', () => {
  let pools: PoolSet | undefined
  afterEach(async () => {
    await pools?.close()
    pools = undefined
  })

  it("B's two tasks finish before most of A's forty, though A queued first", async () => {
    pools = createPools({
      free: { threads: 1, queue: 64, memoryMb: 256, offHeapMb: 256 },
      paid: { threads: 1, queue: 64, memoryMb: 256, offHeapMb: 256 },
      dedicated: {},
      warm: true,
      admissionWaitMs: 0,
    } as Parameters<typeof createPools>[0])
    const dispatcher = createDispatcher(
      pools,
      createPoolMetrics(new Registry(), () => pools!.all(), CATALOG),
    )
    const execution: Execution = {
      mode: 'pool',
      op: opNamed('text.inspect'),
      heavyCheck: false,
      rawBody: false,
      declaredBytes: undefined,
      reservation: null,
    }
    const limits = { ...DEFAULT_PLANS.pro, compute_budget_ms: 60_000 }
    // a few tens of milliseconds each (grapheme segmentation)
    const input = { input: 'e\u0301🇫🇷 '.repeat(4_000) }
    const run = (workspaceId: string) =>
      Promise.resolve(
        dispatcher.run({ op: execution.op, input, octets: false }, { workspaceId, limits, execution }),
      )
    // the thread is up before the race starts
    await run('warm')
    let aDone = 0
    const a = Array.from({ length: 40 }, () => run('ws_a').then(() => aDone++))
    const aDoneWhenB: number[] = []
    const b = Array.from({ length: 2 }, () => run('ws_b').then(() => aDoneWhenB.push(aDone)))
    await Promise.all([...a, ...b])
    expect(aDone).toBe(40)
    // round-robin: B waits for at most one of A's tasks per turn; FIFO would have made it wait for all 40
    expect(Math.max(...aDoneWhenB)).toBeLessThan(10)
  }, 120_000)
})
