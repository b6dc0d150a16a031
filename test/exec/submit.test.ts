import { afterEach, describe, expect, it } from 'vitest'
import { createPools, type PoolSet } from '../../src/exec/pools.ts'
import { submit } from '../../src/exec/submit.ts'

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
      free: { threads: 1, queue: 8, memoryMb: 256, offHeapMb: 256 },
      paid: { threads: 1, queue: 8, memoryMb: 512, offHeapMb: 256 },
      dedicated: {},
      warm: true,
      admissionWaitMs: 0,
    } as Parameters<typeof createPools>[0])
    const budgetMs = 150
    // the thread is up first: its boot is not what this measures
    await submit(
      pools,
      { kind: 'job.run', raw: JOB, maxResultBytes: 1024, caps: {}, tenant: '' },
      { workspaceId: 'ws', tier: 'paid', budgetMs: 60_000 },
    )
    const slow = submit(
      pools,
      {
        kind: 'op',
        op: 'text.inspect',
        input: { input: 'e\u0301🇫🇷 '.repeat(300_000) },
        octets: false,
        caps: {},
        tenant: '',
      },
      { workspaceId: 'ws_a', tier: 'paid', budgetMs: 60_000 },
    )
    const job = submit(
      pools,
      { kind: 'job.run', raw: JOB, maxResultBytes: 1024, caps: {}, tenant: '' },
      { workspaceId: 'ws_b', tier: 'paid', budgetMs },
    )
    const [first, second] = await Promise.all([slow, job])
    // the job waited longer than its budget for the thread, and still ran to its result
    if (!first.ok || !second.ok) throw new Error(`a task failed: ${JSON.stringify([first, second])}`)
    expect(first.runMs).toBeGreaterThan(budgetMs)
    expect(second.waitMs).toBeGreaterThan(budgetMs)
    expect(JSON.parse((second.reply as { json: string }).json)).toMatchObject({ algorithm: 'sha256' })
  }, 120_000)
})
