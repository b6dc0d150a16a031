import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { createPools } from '../../src/exec/pools.ts'

const FIXTURE = new URL('./fixtures/thread-modules.op.ts', import.meta.url).href
const loadedOn = async (run: (task: unknown) => Promise<{ bytes: Uint8Array }>) =>
  JSON.parse(
    Buffer.from(
      (
        await run({
          kind: 'op',
          op: 'text.thread_modules',
          input: { input: 'x' },
          octets: false,
          caps: {},
          tenant: 't',
        })
      ).bytes,
    ).toString(),
  ).data as { loaded: string[]; thread: number }

// src/exec/thread-sources.ts: Node strips TypeScript with amaro, a WebAssembly module whose shared code V8
// collected in a race with thread terminations (a SIGSEGV of the whole process). A pool thread gets its
// modules' JavaScript from the event loop instead, and never starts amaro.
describe('pool threads run no WebAssembly', () => {
  it('a warm thread, after a job task too (jobs.ts loads on the first), and its replacement, load no amaro', async () => {
    const config = loadConfig({ POOL_WARM: 'true', POOL_FREE_THREADS: '1', POOL_PAID_THREADS: '1' })
    const pools = createPools(config.pools, [FIXTURE])
    try {
      const paid = pools.pick('ws_x', 'paid').piscina
      const job = Buffer.from(
        JSON.stringify({ operation: 'hash', params: { algorithm: 'sha256', input: 'x' } }),
      )
      expect(await paid.run({ kind: 'job.prepare', raw: job })).toMatchObject({ ok: true })
      // Node's TypeScript support is there (it is Node's own module list), amaro is not
      const first = await loadedOn((task) => paid.run(task))
      expect(first.loaded).not.toEqual([])
      expect(first.loaded.filter((m) => /amaro/.test(m))).toEqual([])
      // a thread terminated mid-task is replaced by one that loads the same way
      const stop = new AbortController()
      const long = paid.run(
        {
          kind: 'op',
          op: 'json.diff',
          input: { left: [...Array(200_000).keys()], right: [...Array(200_000).keys()].reverse() },
          octets: false,
          caps: {},
          tenant: 't',
        },
        { signal: stop.signal },
      )
      // running, not queued: the abort terminates the thread
      await new Promise((r) => setTimeout(r, 300))
      stop.abort()
      await expect(long).rejects.toThrow()
      const next = await loadedOn((task) => paid.run(task))
      expect(next.thread).not.toBe(first.thread)
      expect(next.loaded.filter((m) => /amaro/.test(m))).toEqual([])
    } finally {
      await pools.close()
    }
  })
})
