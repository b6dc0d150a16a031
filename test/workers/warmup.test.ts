import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CATALOG } from '../../src/ops/catalog.ts'
import { warmUpOps } from '../../workers/warmup.ts'
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts'
import { h1Request } from '../helpers/tls-client.ts'

// the bench's shape (bench/json-diff.ts): 10k products a side, 5% repriced, a splice and a moved block
function diffBody(count: number): string {
  const product = (id: number) => ({
    id,
    sku: `SKU-${id}`,
    name: `Product ${id}`,
    price: (id % 9973) / 10,
    tags: ['new'],
  })
  const left = Array.from({ length: count }, (_, id) => product(id))
  const right = left.map((p, i) => (i % 20 === 0 ? { ...p, price: p.price + 1 } : p))
  right.splice(count * 0.3, count / 100, ...Array.from({ length: count / 200 }, (_, k) => product(count + k)))
  right.splice(count * 0.1, 0, ...right.splice(count * 0.6, count / 100))
  return JSON.stringify({ left: { items: left }, right: { items: right }, array_key: 'id', output: 'both' })
}

// Server-Timing: dispatch;desc="paid", wait;dur=0.41, run;dur=12.20
function timing(header: unknown): { wait: number; run: number } {
  const text = String(header)
  return {
    wait: Number(/wait;dur=([\d.]+)/.exec(text)?.[1] ?? Number.NaN),
    run: Number(/run;dur=([\d.]+)/.exec(text)?.[1] ?? Number.NaN),
  }
}

describe('thread warm-up', () => {
  it('warms every hot op without an error', async () => {
    const report = await warmUpOps(CATALOG)
    expect(report.failed).toEqual([])
  })

  describe('a freshly started gateway', () => {
    let server: ServerProcess
    let dataDir: string
    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'anvil-warm-'))
      server = await startServerProcess({
        DATA_DIR: dataDir,
        DEFAULT_PLAN: 'business',
        LOG_LEVEL: 'warn',
        POOL_FREE_THREADS: '1',
        POOL_PAID_THREADS: '1',
      })
    }, 90_000)
    afterAll(async () => {
      await server?.stop()
      await rm(dataDir, { recursive: true, force: true })
    })

    it('is ready only once its threads are warm, and its first heavy diff runs about as fast as its tenth', async () => {
      const deadline = Date.now() + 30_000
      let ready = await h1Request(server.url, { path: '/readyz', ca: server.ca })
      while (ready.status !== 200 && Date.now() < deadline) {
        expect(ready.status).toBe(503)
        await new Promise((r) => setTimeout(r, 50))
        ready = await h1Request(server.url, { path: '/readyz', ca: server.ca })
      }
      expect(ready.status).toBe(200)
      const body = diffBody(10_000)
      const headers = { authorization: `Bearer ${server.firstKey}`, 'content-type': 'application/json' }
      const runs: { wait: number; run: number }[] = []
      for (let i = 0; i < 10; i++) {
        const res = await h1Request(server.url, {
          method: 'POST',
          path: '/v1/json/diff',
          headers,
          body,
          ca: server.ca,
        })
        expect(res.status).toBe(200)
        runs.push(timing(res.headers['server-timing']))
      }
      const [first] = runs as [{ wait: number; run: number }]
      const later = runs
        .slice(5)
        .map((r) => r.run)
        .sort((a, b) => a - b)
      const typical = later[Math.floor(later.length / 2)]!
      // the thread existed and was warm: no boot, no module loading on the first request's clock (cold, the
      // issue measured 262 ms of wait); generous for a machine shared with other work
      expect(first.wait).toBeLessThan(100)
      // ~2× the typical later run (cold, the issue measured 302 ms against 80-160 ms warm), compared with the
      // median of the last five so one slow run on a busy machine does not decide it, plus slack for load
      expect(first.run).toBeLessThan(2.5 * typical + 100)
    }, 120_000)
  })
})
