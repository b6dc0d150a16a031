import { afterEach, describe, expect, it } from 'vitest'
import { createPools, type PoolSet } from '../../src/exec/pools.ts'
import { submitTask } from '../../src/exec/submit.ts'

const JOB = Buffer.from(JSON.stringify({ operation: 'hash', params: { algorithm: 'sha256', input: 'a' } }))

// One submission path for requests and jobs: a job's compute budget, like a request's, starts when a
// thread starts it (the start board), not when it was submitted.
describe('submitTask', () => {
  let pools: PoolSet | undefined
  afterEach(async () => {
    await pools?.close()
    pools = undefined
  })

  it('a job queued behind a long task is not charged its wait as compute', async () => {
    pools = createPools({
      free: { threads: 1, queue: 8, memoryMb: 256 },
      paid: { threads: 1, queue: 8, memoryMb: 512 },
      dedicated: {},
      warm: true,
      admissionWaitMs: 0,
    } as Parameters<typeof createPools>[0])
    const pool = pools.pick('ws', 'paid')
    const budgetMs = 150
    // the thread is up first: its boot is not what this measures
    await submitTask(
      pool,
      { kind: 'job.run', raw: JOB, maxResultBytes: 1024 },
      { workspaceId: 'ws', budgetMs: 60_000 },
    )
    const slow = submitTask(
      pool,
      { kind: 'op', op: 'text.inspect', input: { input: 'e\u0301🇫🇷 '.repeat(300_000) } },
      { workspaceId: 'ws_a', budgetMs: 60_000 },
    )
    const job = submitTask(
      pool,
      { kind: 'job.run', raw: JOB, maxResultBytes: 1024 },
      { workspaceId: 'ws_b', budgetMs },
    )
    const [first, second] = await Promise.all([slow, job])
    // the job waited longer than its budget for the thread, and still ran to its result
    expect(first.reply.runMs).toBeGreaterThan(budgetMs)
    expect(second.reply.startedAt - second.submittedAt).toBeGreaterThan(budgetMs)
    expect(second.reply).toMatchObject({ ok: true })
    expect(JSON.parse((second.reply as { json: string }).json)).toMatchObject({ algorithm: 'sha256' })
  }, 120_000)
})
