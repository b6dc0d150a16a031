import { spawnSync } from 'node:child_process'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { jsonDiffBody } from '../../src/ops/json/diff/schema.ts'
import { startTestApp, type TestApp } from '../helpers/harness.ts'
import { opNamed } from '../helpers/ops.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'
import { editedList } from '../ops/json/diff/large-helpers.ts'
import { sleep } from './jobs-harness.ts'
import { startWorkerProcess, type WorkerProcess } from './worker-process.ts'

describeRedis('job worker processes: nothing is lost when one is killed mid-job', () => {
  let server: RedisServer
  let gateway: TestApp
  const workers: WorkerProcess[] = []
  beforeAll(async () => {
    server = await startRedis()
    // a gateway with no consumer of its own: the worker processes run every job. Unthrottled: the test
    // polls 20 jobs every 20 ms, over the business key's 500 a second (its answers turned 429)
    gateway = await startTestApp({ unthrottled: true, env: { REDIS_URL: server.url } })
  })
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')))
    await gateway?.close()
    await server?.stop()
  })

  const workerEnv = () => ({
    REDIS_URL: server.url,
    POOL_PAID_THREADS: '2',
    POOL_FREE_THREADS: '1',
    JOBS_CONCURRENCY: '2',
    // a dead worker's jobs go back to the queue within a couple of seconds instead of a minute
    JOBS_STALLED_INTERVAL_MS: '1000',
  })
  const statuses = async (ids: string[]) =>
    Promise.all(
      ids.map(async (id) => {
        const r = await gateway.app.inject({
          method: 'GET',
          url: `/v1/jobs/${id}`,
          headers: { authorization: `Bearer ${gateway.key}` },
        })
        if (r.statusCode !== 200) throw new Error(`GET /v1/jobs/${id}: ${r.statusCode} ${r.body}`)
        return r.json().data as { status: string; result?: unknown; error?: unknown }
      }),
    )

  it('20 large diffs, the worker SIGKILLed mid-run, a second worker: all 20 complete, correctly', async () => {
    const params = Array.from({ length: 20 }, (_, i) => {
      const list = editedList(6_000, 100 + i)
      return {
        left: { items: list.left },
        right: { items: list.right },
        output: 'both',
        array_key: i % 2 ? 'id' : undefined,
      }
    })
    const ids: string[] = []
    for (const p of params) {
      const r = await gateway.post('/v1/jobs', { operation: 'json.diff', params: p })
      expect(r.statusCode).toBe(202)
      ids.push(r.json().data.id)
    }

    const first = await startWorkerProcess(workerEnv())
    workers.push(first)
    expect(await first.metrics()).toMatch(/anvil_jobs_queue_depth\{queue="paid",state="waiting"\} \d+/)
    // kill it once it has finished some jobs and is in the middle of others
    let seen = await statuses(ids)
    while (!(seen.some((s) => s.status === 'completed') && seen.some((s) => s.status === 'active'))) {
      await sleep(20)
      seen = await statuses(ids)
    }
    await first.stop('SIGKILL')
    const atKill = await statuses(ids)
    const completedAtKill = atKill.filter((s) => s.status === 'completed').length
    expect(completedAtKill).toBeLessThan(20)
    expect(atKill.some((s) => s.status === 'active')).toBe(true)

    const second = await startWorkerProcess(workerEnv())
    workers.push(second)
    const expected = params.map((p) =>
      opNamed('json.diff').run(jsonDiffBody.parse(p), { caps: {}, tenant: '' }),
    )
    const deadline = Date.now() + 45_000
    let done = await statuses(ids)
    while (!done.every((s) => s.status === 'completed' || s.status === 'failed')) {
      if (Date.now() > deadline) throw new Error(`not finished: ${done.map((s) => s.status).join(' ')}`)
      await sleep(100)
      done = await statuses(ids)
    }
    expect(done.map((s) => s.status)).toEqual(Array(20).fill('completed'))
    done.forEach((s, i) => {
      expect(s.result).toEqual(expected[i])
    })
    // the second worker found the jobs the first one held and put them back in the queue
    const metrics = await second.metrics()
    const stalled = /anvil_jobs_failed_total\{operation="json.diff",reason="stalled"\} (\d+)/.exec(metrics)
    expect(Number(stalled?.[1])).toBeGreaterThanOrEqual(1)
    // BullMQ moves a job to completed just after its record says so
    await expect
      .poll(() => second.metrics())
      .toMatch(/anvil_jobs_queue_depth\{queue="paid",state="completed"\} 20\n/)
    expect(await second.metrics()).toMatch(/anvil_jobs_queue_depth\{queue="paid",state="active"\} 0\n/)
    // the worker's own event loop and Redis traffic, named by command or BullMQ script
    expect(metrics).toMatch(/anvil_event_loop_utilization_ratio \d/)
    expect(metrics).toMatch(/anvil_redis_command_duration_seconds_count\{command="[a-z]+"\} [1-9]/)
    expect(metrics).toMatch(
      /anvil_redis_command_duration_seconds_count\{command="moveToFinished[^"]*"\} [1-9]/,
    )
    expect(await second.stop('SIGTERM')).toBe(0)
  }, 90_000)

  it('a worker stopped with SIGTERM mid-job hands its jobs back at once; another one runs them', async () => {
    const params = Array.from({ length: 2 }, (_, i) => {
      const list = editedList(20_000, 300 + i)
      return { left: { items: list.left }, right: { items: list.right } }
    })
    const ids: string[] = []
    for (const p of params)
      ids.push((await gateway.post('/v1/jobs', { operation: 'json.diff', params: p })).json().data.id)
    // a shutdown grace far shorter than the jobs: they are handed back, not waited for
    const leaving = await startWorkerProcess({ ...workerEnv(), SHUTDOWN_TIMEOUT_MS: '50' })
    workers.push(leaving)
    while (!(await statuses(ids)).some((s) => s.status === 'active')) await sleep(10)
    expect(await leaving.stop('SIGTERM')).toBe(0)
    expect((await statuses(ids)).map((s) => s.status)).toEqual(['queued', 'queued'])

    const next = await startWorkerProcess(workerEnv())
    workers.push(next)
    let done = await statuses(ids)
    while (!done.every((s) => s.status === 'completed')) {
      expect(done.some((s) => s.status === 'failed')).toBe(false)
      await sleep(100)
      done = await statuses(ids)
    }
    done.forEach((s, i) => {
      expect(s.result).toEqual(
        opNamed('json.diff').run(jsonDiffBody.parse(params[i]), { caps: {}, tenant: '' }),
      )
    })
    // handed back, not lost: no stall was needed to recover them
    // the stalled series exist from boot at 0: none may have counted
    expect(await next.metrics()).toMatch(/reason="stalled"\} 0\n/)
    expect(await next.metrics()).not.toMatch(/reason="stalled"\} [1-9]/)
  }, 60_000)

  it('refuses to start without Redis, saying why', () => {
    const r = spawnSync(process.execPath, ['src/main/job-worker.ts'], {
      cwd: new URL('../../', import.meta.url).pathname,
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
    })
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/needs REDIS_URL or REDIS_CLUSTER_NODES/)
  })
})
