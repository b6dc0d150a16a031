import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { jobsApiSuite } from './api-suite.ts'
import { hashJob as hash, type JobsApp, jobsAppStarter, SLOW_JOB as SLOW } from './jobs-harness.ts'

const start = jobsAppStarter('embedded')

describe('jobs, embedded (no Redis): the /v1/jobs contract', () => {
  jobsApiSuite(start)
})

describe('jobs, embedded: on disk under DATA_DIR/jobs', () => {
  let h: JobsApp | undefined
  let dataDir: string | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
    dataDir = undefined
  })

  it('survives a restart: results are kept, queued jobs run, a job cut off by a crash runs again', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-jobs-'))
    const env = { JOBS_CONCURRENCY: '1' }
    h = await start({ dataDir, env })
    const key = h.t.key
    const done = (await h.submit(hash('kept'))).json().data.id as string
    const kept = await h.finished(done)
    const slow = (await h.submit(SLOW)).json().data.id as string
    const waiting = (await h.submit(hash('waiting'))).json().data.id as string
    // graceful stop: the running job is handed back (queued), nothing is lost
    await h.close()
    // what a SIGKILL mid-run leaves behind: the record still says active
    const record = join(dataDir, 'jobs', `${slow}.json`)
    const meta = JSON.parse(await readFile(record, 'utf8'))
    expect(meta.status).toBe('queued')
    await writeFile(record, JSON.stringify({ ...meta, status: 'active' }))

    h = await start({ dataDir, env })
    expect(await h.finished(done, key)).toEqual(kept)
    const slowJob = await h.finished(slow, key)
    expect(slowJob.status).toBe('completed')
    expect(slowJob.result).toEqual((await h.t.post('/v1/json/diff', SLOW.params)).json().data)
    expect((await h.finished(waiting, key)).status).toBe('completed')
    expect(await h.workerMetrics()).toMatch(
      /anvil_jobs_failed_total\{operation="json.diff",reason="stalled"\} 1\n/,
    )
    // finished jobs keep their record and result only; inputs are gone
    const files = (await readdir(join(dataDir, 'jobs'))).sort()
    expect(files).toEqual([done, slow, waiting].flatMap((id) => [`${id}.json`, `${id}.result`]).sort())
  })

  it('deletes a job from disk once it expires', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-jobs-'))
    h = await start({ dataDir })
    const id = (await h.submit(hash('x'))).json().data.id as string
    await h.finished(id)
    expect(await readdir(join(dataDir, 'jobs'))).toContain(`${id}.result`)
    h.advance(86_400_000)
    expect((await h.get(`/v1/jobs/${id}`)).statusCode).toBe(404)
    expect((await readdir(join(dataDir, 'jobs'))).filter((f) => f.startsWith(id))).toEqual([])
  })

  it('runs waiting business jobs before pro jobs', async () => {
    h = await start({ plan: 'pro', env: { JOBS_CONCURRENCY: '1' } })
    const business = await h.t.newWorkspace('business')
    await h.submit(SLOW)
    const pro = await Promise.all(['a', 'b'].map(async (x) => (await h!.submit(hash(x))).json().data.id))
    const first = (await h.submit(hash('c'), business.key)).json().data.id
    const startedAt = async (id: string, key?: string) => Date.parse((await h!.finished(id, key)).started_at!)
    const businessAt = await startedAt(first, business.key)
    for (const id of pro) expect(await startedAt(id)).toBeGreaterThanOrEqual(businessAt)
  })
})
