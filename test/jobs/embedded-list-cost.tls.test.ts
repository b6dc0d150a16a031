import { mkdirSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/http/app.ts'
import { newJobId } from '../../src/jobs/job-id.ts'
import type { JobMeta, JobStatus } from '../../src/jobs/types.ts'
import { createApiKey } from '../../src/keys/service.ts'
import { processCpuMs as cpuMs } from '../helpers/cpu.ts'
import { startTestApp, type TestApp } from '../helpers/harness.ts'
import { h1Request } from '../helpers/tls-client.ts'

// A page of GET /v1/jobs on the embedded store costs its own items, not the workspace's job count: it
// copied and sorted every job of the workspace after scanning every workspace's (229-540 ms a page at
// 200k finished jobs, issue 27). Two gateways, one workspace each, one with 20 times the other's
// finished jobs: a page of the large one must cost about what a page of the small one does, measured as
// the CPU time from the request's onRequest hook to its onSend (the least of several pages), unfiltered,
// by status and past a cursor.

const SMALL = 500
const LARGE = 10_000
// generous: before, the large workspace's page cost ~10-40 times the small one's
const RATIO = 3

interface Gateway {
  dataDir: string
  t: TestApp
  app: FastifyInstance
  url: string
  key: string
  // the workspace's job ids, oldest first
  ids: string[]
}

const spent = new Map<string, number>()
const gateways: Partial<Record<'small' | 'large', Gateway>> = {}

function writeJobs(dataDir: string, workspaceId: string, count: number): string[] {
  const dir = join(dataDir, 'jobs')
  mkdirSync(dir, { recursive: true })
  const start = Date.now() - count * 1000
  const statuses: JobStatus[] = ['completed', 'completed', 'failed', 'cancelled']
  const written: string[] = []
  for (let i = 0; i < count; i++) {
    const created = start + i * 10
    const meta: JobMeta = {
      id: newJobId(),
      workspace_id: workspaceId,
      operation: 'hash',
      plan: 'business',
      tier: 'paid',
      budget_ms: 1000,
      max_result_bytes: 1000,
      status: statuses[i % statuses.length]!,
      created_at: created,
      started_at: created,
      finished_at: created + 5,
      expires_at: Date.now() + 86_400_000,
      attempts: 1,
      stalls: 0,
    }
    written.push(meta.id)
    writeFileSync(join(dir, `${meta.id}.json`), JSON.stringify(meta))
  }
  return written
}

// a gateway whose one workspace has `count` finished jobs, written to DATA_DIR/jobs before it starts (as
// a restart finds them), with the test's timing hooks
async function gatewayWith(count: number): Promise<Gateway> {
  const dataDir = await mkdtemp(join(tmpdir(), 'anvil-joblist-'))
  const first = await startTestApp({ dataDir })
  const ws = await first.runtime.store.createWorkspace({ name: 'jobs', plan: 'business' })
  const key = await createApiKey(first.runtime.store, { workspace_id: ws.id })
  if (!key.ok) throw new Error(key.reason)
  await first.close()
  const ids = writeJobs(dataDir, ws.id, count)
  const t = await startTestApp({ dataDir, tls: true, unthrottled: true })
  const app = await buildApp(t.runtime, { tls: t.tls })
  const started = new WeakMap<FastifyRequest, number>()
  app.addHook('onRequest', async function startClock(request) {
    started.set(request, cpuMs())
  })
  app.addHook('onSend', async function stopClock(request) {
    const at = started.get(request)
    const id = request.headers['x-case']
    if (at !== undefined && typeof id === 'string') spent.set(id, cpuMs() - at)
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `https://127.0.0.1:${(app.server.address() as { port: number }).port}`
  return { dataDir, t, app, url, key: key.key, ids }
}

beforeAll(async () => {
  gateways.small = await gatewayWith(SMALL)
  gateways.large = await gatewayWith(LARGE)
}, 180_000)

afterAll(async () => {
  for (const g of Object.values(gateways)) {
    await g.app.close()
    await g.t.close()
    await rm(g.dataDir, { recursive: true, force: true })
  }
})

// the least CPU time of `tries` requests of one page, and the last answer
async function page(who: 'small' | 'large', query: string, tries = 7) {
  const g = gateways[who]!
  let best = Number.POSITIVE_INFINITY
  let body: { data: { data: { id: string; status: string }[]; has_more: boolean } } | undefined
  for (let i = 0; i < tries; i++) {
    const id = `${who} ${query} ${i}`
    const r = await h1Request(g.url, {
      path: `/v1/jobs${query}`,
      ca: g.t.tls!.cert,
      headers: { authorization: `Bearer ${g.key}`, 'x-case': id },
    })
    expect(r.status, r.body.toString()).toBe(200)
    body = r.json()
    best = Math.min(best, spent.get(id)!)
  }
  return { ms: best, page: body!.data }
}

describe('embedded job lists: a page costs its own items (issue 27)', () => {
  it('the workspace with 20x the jobs pays about the same for a page, filtered or not, near its end or not', async () => {
    const rows: string[] = []
    for (const query of ['?limit=20', '?limit=20&status=failed', '?limit=100&status=completed']) {
      const small = await page('small', query)
      const large = await page('large', query)
      rows.push(`${query}: ${SMALL} jobs ${small.ms.toFixed(2)} ms, ${LARGE} jobs ${large.ms.toFixed(2)} ms`)
      expect(large.page.data.length).toBe(Number(/limit=(\d+)/.exec(query)![1]))
      expect(large.page.has_more).toBe(true)
      expect(large.ms, rows.join('\n')).toBeLessThan(RATIO * small.ms + 0.5)
    }
    // near the end of each list: after its 30th-oldest job, 29 left
    const small = await page('small', `?limit=20&starting_after=${gateways.small!.ids[29]}`)
    const large = await page('large', `?limit=20&starting_after=${gateways.large!.ids[29]}`)
    rows.push(`near the end: ${small.ms.toFixed(2)} ms, ${large.ms.toFixed(2)} ms`)
    expect(large.page.data.map((j) => j.id)).toEqual(gateways.large!.ids.slice(9, 29).reverse())
    expect(large.ms, rows.join('\n')).toBeLessThan(RATIO * small.ms + 0.5)
    process.stdout.write(`${rows.join('\n')}\n`)
  }, 120_000)

  it('pages are newest first and walk the whole list with starting_after, status by status', async () => {
    const seen: string[] = []
    let after = ''
    for (;;) {
      const { page: p } = await page('small', `?limit=100&status=completed${after}`, 1)
      expect(p.data.every((j) => j.status === 'completed')).toBe(true)
      seen.push(...p.data.map((j) => j.id))
      if (!p.has_more) break
      after = `&starting_after=${p.data.at(-1)!.id}`
    }
    expect(seen.length).toBe(SMALL / 2)
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen.at(-1)).toBe(gateways.small!.ids[0])
    // the cursor may be a job of another status; an unknown one is refused
    const { page: failed } = await page('small', '?limit=1&status=failed', 1)
    const next = await page('small', `?limit=5&status=cancelled&starting_after=${failed.data[0]!.id}`, 1)
    expect(next.page.data.every((j) => j.status === 'cancelled')).toBe(true)
    const small = gateways.small!
    const unknown = await h1Request(small.url, {
      path: `/v1/jobs?starting_after=${gateways.large!.ids[0]}`,
      ca: small.t.tls!.cert,
      headers: { authorization: `Bearer ${small.key}` },
    })
    expect(unknown.status).toBe(400)
  })
})
