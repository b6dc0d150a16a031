import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { getHeapStatistics } from 'node:v8'
import { Worker } from 'node:worker_threads'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PoolAdmission } from '../../src/exec/admission.ts'
import { afterTask, collectionsRun, GROWTH_BYTES, SWEEP_BYTES, sweepsRun } from '../../workers/memory.ts'
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts'
import { h1Request } from '../helpers/tls-client.ts'

const MiB = 1024 * 1024

function rssOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (!check() && Date.now() < deadline) await sleep(100)
  return check()
}

describe('a thread gives memory back after a large task', () => {
  it('collects once idle after a task that grew the heap, and not after a short one', async () => {
    const before = collectionsRun()
    afterTask(1)
    // a "large task": ~80 MiB of short-lived objects, then garbage
    let garbage: number[][] | undefined = Array.from({ length: 160 }, () =>
      new Array<number>(65_536).fill(0.5),
    )
    expect(getHeapStatistics().total_heap_size).toBeGreaterThan(GROWTH_BYTES)
    garbage = undefined
    expect(garbage).toBeUndefined()
    const committed = getHeapStatistics().total_heap_size
    afterTask(500)
    expect(await until(() => collectionsRun() === before + 1, 5_000)).toBe(true)
    expect(getHeapStatistics().total_heap_size).toBeLessThan(committed - GROWTH_BYTES)
    // nothing grew since: the next long task does not collect again
    afterTask(500)
    await sleep(500)
    expect(collectionsRun()).toBe(before + 1)
  })

  it('sweeps what a task left once it has answered when that is SWEEP_BYTES or more, and not less', async () => {
    const nextTurn = () => new Promise((r) => setImmediate(r))
    // a task that leaves `bytes` of its heap in use (garbage once it answers), and what its end sets off;
    // the heap's own accounting is not byte-exact, so the two sides of the bound are 16 MiB away from it
    const task = async (bytes: number, runMs = 500) => {
      const before = sweepsRun()
      let left: number[][] | undefined = Array.from({ length: Math.round(bytes / (512 * 1024)) }, () =>
        new Array<number>(65_536).fill(0.5),
      )
      expect(left.length).toBeGreaterThan(0)
      left = undefined
      const used = getHeapStatistics().used_heap_size
      afterTask(runMs)
      // not before the answer is posted: the sweep waits for the next turn of the thread's loop
      expect(sweepsRun()).toBe(before)
      await nextTurn()
      await nextTurn()
      return { swept: sweepsRun() - before, freed: used - getHeapStatistics().used_heap_size }
    }
    // one first, so what this test process allocated before does not count
    expect((await task(SWEEP_BYTES + 16 * MiB)).swept).toBe(1)
    expect((await task(SWEEP_BYTES - 16 * MiB)).swept).toBe(0)
    const large = await task(SWEEP_BYTES + 16 * MiB)
    expect(large.swept).toBe(1)
    expect(large.freed).toBeGreaterThan(SWEEP_BYTES)
    // a short task's too: what short tasks promote would otherwise wait for V8, which the threads' initial
    // old space (src/lib/gc.ts) lets wait until 160 MiB
    expect((await task(SWEEP_BYTES + 16 * MiB, 1)).swept).toBe(1)
    expect((await task(SWEEP_BYTES - 16 * MiB, 1)).swept).toBe(0)
  })

  // a stand-in pool thread (fixtures/memory-thread.ts) sharing a pool's count of busy places, as pools.ts does
  function memoryThread(busy: Int32Array) {
    const thread = new Worker(new URL('./fixtures/memory-thread.ts', import.meta.url), {
      workerData: { busy: busy.buffer },
    })
    const grown = new Promise((resolve) => thread.once('message', resolve))
    const collections = () =>
      new Promise<number>((resolve) => {
        thread.once('message', (m: { collections: number }) => resolve(m.collections))
        thread.postMessage('collections?')
      })
    const collected = async (ms: number) => {
      const deadline = Date.now() + ms
      let n = await collections()
      while (n === 0 && Date.now() < deadline) {
        await sleep(100)
        n = await collections()
      }
      return n
    }
    return { thread, grown, collections, collected }
  }

  it('waits while its pool is busy (a body arriving, a task running): the next task would grow it again', async () => {
    const busy = new Int32Array(new SharedArrayBuffer(8))
    const admission = new PoolAdmission(2, 2, busy)
    const { reservation } = admission.reserve('ws_a', 0)
    expect(Atomics.load(busy, 0)).toBe(1)
    const t = memoryThread(busy)
    try {
      await t.grown
      // two of the thread's looks (1 s apart) with a body still arriving: no collection
      await sleep(2_500)
      expect(await t.collections()).toBe(0)
      // its task runs (on another thread, say): still none, two looks on
      expect(admission.start(reservation)).toBe(true)
      expect(Atomics.load(busy, 0)).toBe(1)
      await sleep(2_200)
      expect(await t.collections()).toBe(0)
      // the pool is quiet: collected after a second or two of it
      admission.finish()
      expect(Atomics.load(busy, 0)).toBe(0)
      expect(await t.collected(8_000)).toBe(1)
    } finally {
      await t.thread.terminate()
    }
  }, 20_000)

  it('waits until nothing has come to its pool for a whole second: requests that come and go between its looks defer it', async () => {
    const busy = new Int32Array(new SharedArrayBuffer(8))
    const admission = new PoolAdmission(2, 2, busy)
    const t = memoryThread(busy)
    try {
      await t.grown
      // one client's large requests, one after the other: each on the pool for a moment, 800 ms apart (under
      // the second), so the pool is empty at almost any instant the thread looks
      for (let i = 0; i < 6; i++) {
        const { reservation } = admission.reserve('ws_a', 0)
        expect(admission.start(reservation)).toBe(true)
        await sleep(5)
        admission.finish('ws_a')
        await sleep(800)
      }
      expect(Atomics.load(busy, 0)).toBe(0)
      expect(await t.collections()).toBe(0)
      // then nothing comes: collected once a whole second has passed without a request, and not before
      const quietFrom = Date.now() - 800
      expect(await t.collected(5_000)).toBe(1)
      expect(Date.now() - quietFrom).toBeGreaterThanOrEqual(1_000)
    } finally {
      await t.thread.terminate()
    }
  }, 20_000)

  it('collects within 10 s even on a pool that never goes quiet (issue 14)', async () => {
    const busy = new Int32Array(new SharedArrayBuffer(8))
    new PoolAdmission(2, 2, busy).start()
    const t = memoryThread(busy)
    try {
      await t.grown
      const started = Date.now()
      expect(await t.collected(12_000)).toBe(1)
      expect(Date.now() - started).toBeGreaterThan(7_000)
    } finally {
      await t.thread.terminate()
    }
  }, 20_000)

  describe('through a gateway', () => {
    let server: ServerProcess
    let dataDir: string
    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'anvil-memory-'))
      server = await startServerProcess({
        DATA_DIR: dataDir,
        DEFAULT_PLAN: 'business',
        LOG_LEVEL: 'warn',
        POOL_FREE_THREADS: '1',
        POOL_PAID_THREADS: '1',
        PLANS: JSON.stringify({ business: { max_json_bytes: 64 * MiB, compute_budget_ms: 120_000 } }),
      })
    }, 90_000)
    afterAll(async () => {
      await server?.stop()
      await rm(dataDir, { recursive: true, force: true })
    })

    it('after a 100k-item diff, its RSS is back near idle within seconds (bench/diff-memory.ts)', async () => {
      const ready = () => h1Request(server.url, { path: '/readyz', ca: server.ca }).then((r) => r.status)
      const deadline = Date.now() + 30_000
      while ((await ready()) !== 200 && Date.now() < deadline) await sleep(100)
      await sleep(1_000)
      const pid = server.child.pid!
      const idle = rssOf(pid)
      const product = (id: number) => ({
        id,
        sku: `SKU-${id}`,
        name: `Product ${id}`,
        price: id / 10,
        tags: ['new'],
      })
      const left = Array.from({ length: 100_000 }, (_, id) => product(id))
      const right = left.map((p, i) => (i % 20 === 0 ? { ...p, price: p.price + 1 } : p))
      const body = JSON.stringify({
        left: { items: left },
        right: { items: right },
        array_key: 'id',
        output: 'both',
      })
      const headers = { authorization: `Bearer ${server.firstKey}`, 'content-type': 'application/json' }
      const res = await h1Request(server.url, {
        method: 'POST',
        path: '/v1/json/diff',
        headers,
        body,
        ca: server.ca,
      })
      expect(res.status).toBe(200)
      // the target is idle + 64 MiB within 10 s; generous here so a busy machine does not fail it
      const back = await until(() => rssOf(pid) < idle + 96 * MiB, 15_000)
      expect(back, `RSS ${(rssOf(pid) / MiB).toFixed(0)} MiB, idle ${(idle / MiB).toFixed(0)} MiB`).toBe(true)
    }, 120_000)
  })
})
