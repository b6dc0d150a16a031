import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { hashJob as hash, type JobsApp, jobsAppStarter, SLOW_JOB as SLOW, sleep } from './jobs-harness.ts'

const start = jobsAppStarter('embedded')

// The embedded backend keeps its lists in indexes (src/jobs/embedded/job-index.ts): what a restart rebuilds
// from disk and what the sweeper drops in expiry order must agree with the records.
describe('jobs, embedded: the indexes across restarts and expiry', () => {
  let h: JobsApp | undefined
  let dataDir: string | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
    dataDir = undefined
  })

  it('a job cancelled while it waited stays cancelled after a restart (it was queued again and ran)', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-jobs-'))
    const env = { JOBS_CONCURRENCY: '1' }
    h = await start({ dataDir, env })
    // the workspace of the first start (each start makes one of its own)
    const key = h.t.key
    const slow = (await h.submit(SLOW)).json().data.id as string
    const waiting = (await h.submit(hash('waiting'))).json().data.id as string
    const cancelled = await h.t.app.inject({
      method: 'DELETE',
      url: `/v1/jobs/${waiting}`,
      headers: { authorization: `Bearer ${h.t.key}` },
    })
    expect(cancelled.json().data.status).toBe('cancelled')
    await h.close()
    h = await start({ dataDir, env })
    await h.finished(slow, key)
    await sleep(200)
    const after = (await h.get(`/v1/jobs/${waiting}`, key)).json().data
    expect(after.status).toBe('cancelled')
    expect(after.started_at).toBeUndefined()
    const listed = (await h.get('/v1/jobs?status=cancelled', key)).json().data.data as { id: string }[]
    expect(listed.map((j) => j.id)).toEqual([waiting])
  }, 60_000)

  it('the sweeper drops expired jobs from disk and from the lists without a read of them', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-jobs-'))
    // a 4 s lifetime: the sweeper runs every second
    h = await start({ dataDir, env: { JOBS_RESULT_TTL_SECONDS: '4' } })
    const ids: string[] = []
    for (let i = 0; i < 12; i++) ids.push((await h.submit(hash(`x${i}`))).json().data.id as string)
    for (const id of ids) await h.finished(id)
    const list = async () =>
      ((await h!.get('/v1/jobs?limit=100')).json().data.data as { id: string }[]).length
    expect(await list()).toBe(12)
    expect(await h.gatewayMetrics()).toMatch(/anvil_jobs_queue_depth\{queue="paid",state="completed"\} 12\n/)
    h.advance(5_000)
    // left out of lists at once (exact lifetime), removed from disk by the next sweep
    expect(await list()).toBe(0)
    const deadline = Date.now() + 10_000
    while ((await readdir(join(dataDir, 'jobs'))).length > 0 && Date.now() < deadline) await sleep(200)
    expect(await readdir(join(dataDir, 'jobs'))).toEqual([])
    // counted without a scan, and given back as they go
    expect(await h.gatewayMetrics()).toMatch(/anvil_jobs_queue_depth\{queue="paid",state="completed"\} 0\n/)
  }, 60_000)
})
