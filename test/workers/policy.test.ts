import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { createPools } from '../../src/exec/pools.ts'

const SCHED_IDLE = 5
const linux = process.platform === 'linux'

// name and scheduling policy of each thread of this process (/proc/<pid>/task/<tid>/stat, field 41)
function threads(): Map<string, { name: string; policy: number }> {
  const out = new Map<string, { name: string; policy: number }>()
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      out.set(tid, { name, policy: Number(fields[38]) })
    } catch {
      // the thread ended while we looked
    }
  }
  return out
}

describe.skipIf(!linux)('worker thread scheduling (Linux)', () => {
  it('every pool thread, free and paid, runs under SCHED_IDLE; the event loop and libuv threadpool do not', async () => {
    const config = loadConfig({ POOL_WARM: 'true', POOL_FREE_THREADS: '2', POOL_PAID_THREADS: '1' })
    const before = new Set(threads().keys())
    const pools = createPools(config.pools)
    try {
      // one task per thread so every thread has booted and applied its policy; a hash task runs no
      // threadpool work of its own, so the threadpool is whatever created it (in this test process it may
      // not exist yet: createPools must start it from the event loop, not leave it to a pool thread)
      const [free, paid] = [pools.pick('ws_x', 'free'), pools.pick('ws_x', 'paid')]
      const task = { op: 'hash', input: { algorithm: 'sha256', input: 'x' } }
      await Promise.all([free.piscina.run(task), free.piscina.run(task), paid.piscina.run(task)])
      const all = [...threads().values()]
      const added = [...threads()].filter(([tid]) => !before.has(tid)).map(([, t]) => t)
      const poolThreads = added.filter((t) => t.name === 'WorkerThread')
      expect(poolThreads.map((t) => t.policy)).toEqual([SCHED_IDLE, SCHED_IDLE, SCHED_IDLE])
      const threadpool = all.filter((t) => t.name === 'libuv-worker')
      expect(threadpool.length).toBeGreaterThan(0)
      expect(threadpool.filter((t) => t.policy === SCHED_IDLE)).toEqual([])
      expect(threads().get(String(process.pid))?.policy).not.toBe(SCHED_IDLE)
    } finally {
      await pools.close()
    }
  })
})
