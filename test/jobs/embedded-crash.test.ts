import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts'
import { h1Request } from '../helpers/tls-client.ts'
import { hashJob as hash, movingPatchJob, sleep } from './jobs-harness.ts'

const ADMIN_TOKEN = 'embedded-crash-admin-token-0123456789'

interface Job {
  id: string
  status: string
  progress: number | null
  result?: unknown
  error?: unknown
  started_at?: string
}

// Crash safety of the embedded jobs with a real process: `node src/main/gateway.ts` without Redis runs
// jobs on its own pool, each on disk under DATA_DIR/jobs. Killed with SIGKILL in the middle of a job (no
// shutdown, no handing back), then started again on the same DATA_DIR, it runs that job again, exactly
// once, to the result the operation gives; a finished job is kept as it was, a queued one runs once.
describe('embedded jobs survive a SIGKILL of the gateway', () => {
  let gateway: ServerProcess | undefined
  let dataDir: string | undefined
  afterEach(async () => {
    await gateway?.stop('SIGKILL')
    gateway = undefined
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
    dataDir = undefined
  })

  it('a job cut off mid-operation runs again exactly once after the restart, to the right result', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-jobs-crash-'))
    const env = {
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      BOOTSTRAP: 'false',
      LOG_LEVEL: 'warn',
      POOL_PAID_THREADS: '1',
      POOL_FREE_THREADS: '1',
      POOL_WARM: 'false',
      // one job at a time, its progress stored every 50 ms
      JOBS_CONCURRENCY: '1',
      JOBS_PROGRESS_INTERVAL_MS: '50',
    }
    gateway = await startServerProcess(env)
    const ca = gateway.ca
    const admin = async <T>(path: string, body: unknown): Promise<T> => {
      const res = await fetch(`${gateway!.adminUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(res.status, path).toBe(200)
      return ((await res.json()) as { data: T }).data
    }
    const ws = await admin<{ id: string }>('/admin/workspaces', { name: 'crash', plan: 'business' })
    const { key } = await admin<{ key: string }>('/admin/keys', { workspace_id: ws.id })
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
    const submit = async (body: unknown) => {
      const res = await h1Request(gateway!.url, {
        method: 'POST',
        path: '/v1/jobs',
        headers,
        body: JSON.stringify(body),
        ca,
      })
      expect(res.status).toBe(202)
      return res.json<{ data: { id: string } }>().data.id
    }
    const get = async (id: string) => {
      const res = await h1Request(gateway!.url, { path: `/v1/jobs/${id}`, headers, ca })
      expect(res.status, `GET /v1/jobs/${id}`).toBe(200)
      return res.json<{ data: Job }>().data
    }
    const finished = async (id: string) => {
      const deadline = Date.now() + 120_000
      for (;;) {
        const job = await get(id)
        if (job.status !== 'queued' && job.status !== 'active') return job
        if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status}`)
        await sleep(50)
      }
    }
    const metrics = async () => (await fetch(`${gateway!.adminUrl}/metrics`)).text()
    const record = async (id: string) =>
      JSON.parse(await readFile(join(dataDir!, 'jobs', `${id}.json`), 'utf8')) as {
        status: string
        attempts: number
        stalls: number
      }

    const kept = await finished(await submit(hash('kept')))
    expect(kept.status).toBe('completed')
    // 40,000 moves over 200,000 items: long enough to be cut off in the middle
    const { job, rotated } = movingPatchJob({ items: 200_000, moves: 40_000 })
    const slow = await submit(job)
    const waiting = await submit(hash('waiting'))
    const deadline = Date.now() + 60_000
    for (let seen = await get(slow); !(seen.status === 'active' && (seen.progress ?? 0) > 0); ) {
      if (seen.status !== 'queued' && seen.status !== 'active') throw new Error(`job ${slow} ${seen.status}`)
      if (Date.now() > deadline) throw new Error(`job ${slow} never reported progress`)
      await sleep(10)
      seen = await get(slow)
    }

    // SIGKILL in the middle of the operation: nothing is handed back, the record on disk says active
    gateway.child.kill('SIGKILL')
    await gateway.exited
    const killedAt = Date.now()
    expect(await record(slow)).toMatchObject({ status: 'active', attempts: 1, stalls: 0 })
    expect((await record(waiting)).status).toBe('queued')

    gateway = await startServerProcess(env)
    expect(await get(kept.id)).toEqual(kept)
    const again = await finished(slow)
    expect(again.status).toBe('completed')
    expect(again.result).toEqual(rotated)
    expect(Date.parse(again.started_at!)).toBeGreaterThanOrEqual(killedAt)
    expect((await finished(waiting)).status).toBe('completed')
    // run again exactly once: one run lost with the process (a stall), one run that completed, in this
    // process; the waiting job ran once; the finished one was not run again
    expect(await record(slow)).toMatchObject({ status: 'completed', attempts: 2, stalls: 1 })
    expect(await record(waiting)).toMatchObject({ status: 'completed', attempts: 1, stalls: 0 })
    const text = await metrics()
    expect(text).toMatch(/anvil_jobs_failed_total\{operation="json.patch",reason="stalled"\} 1\n/)
    expect(text).toMatch(/anvil_jobs_duration_seconds_count\{operation="json.patch",status="completed"\} 1\n/)
    expect(text).toMatch(/anvil_jobs_duration_seconds_count\{operation="hash",status="completed"\} 1\n/)
    // finished jobs keep their record and result only
    const files = (await readdir(join(dataDir, 'jobs'))).sort()
    expect(files).toEqual([kept.id, slow, waiting].flatMap((id) => [`${id}.json`, `${id}.result`]).sort())
  }, 240_000)
})
