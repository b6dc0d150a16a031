import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { createPools } from '../../src/exec/pools.ts'

const SCHED_IDLE = 5
const linux = process.platform === 'linux'

// scheduling policy of each thread of this process (/proc/<pid>/task/<tid>/stat, field 41)
function policies(): Map<string, number> {
  const out = new Map<string, number>()
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      out.set(tid, Number(fields[38]))
    } catch {
      // the thread ended while we looked
    }
  }
  return out
}

describe.skipIf(!linux)('worker thread scheduling (Linux)', () => {
  it('free-tier threads run under SCHED_IDLE; paid threads and the event loop do not', async () => {
    const config = loadConfig({ POOL_WARM: 'true', POOL_FREE_THREADS: '2', POOL_PAID_THREADS: '1' })
    const before = new Set(policies().keys())
    const pools = createPools(config.pools)
    try {
      // one task per thread so every thread has booted and applied its policy
      const [free, paid] = [pools.pick('ws_x', 'free'), pools.pick('ws_x', 'paid')]
      const task = { op: 'hash', input: { algorithm: 'sha256', input: 'x' } }
      await Promise.all([free.piscina.run(task), free.piscina.run(task), paid.piscina.run(task)])
      const added = [...policies()].filter(([tid]) => !before.has(tid)).map(([, p]) => p)
      expect(added.filter((p) => p === SCHED_IDLE)).toHaveLength(2)
      expect(policies().get(String(process.pid))).not.toBe(SCHED_IDLE)
    } finally {
      await pools.close()
    }
  })
})
