import { describe, expect, it } from 'vitest'
import { decide } from '../../src/limits/decide.ts'
import { settle } from '../../src/store/redis/consume-batch.ts'
import { decodeRun, RUN_STRIDE } from '../../src/store/redis/limit-reply.ts'
import type { ConsumeRequest, LimitDecision } from '../../src/store/types.ts'

// consume.lua answers each decision with its verdict and the state it decided on; the gateway builds the
// headers' figures from that state with the embedded store's function, and refuses to answer when the
// two verdicts differ (the figures would describe another decision than the one charged).

const req: ConsumeRequest = {
  workspaceId: 'ws_1',
  keyId: 'key_1',
  keyRatePerSecond: 2,
  workspaceRatePerSecond: 10,
  monthlyQuota: 100,
  keyMonthlyQuota: 5,
}
// 2026-06-15 12:00:00.250 UTC, with Redis TIME's microseconds
const now = Date.UTC(2026, 5, 15, 12) + 250.125
// one decision: a run of one, admitted or refused with `verdict`
const one = (
  verdict: number,
  at: number,
  keyTat: number,
  wsTat: number,
  wsMonth: number,
  keyMonth: number,
  r = req,
) => decodeRun([at, keyTat, wsTat, wsMonth, keyMonth, verdict === 0 ? 1 : 0, verdict], 0, [r])[0]

describe("consume.lua's reply, decoded", () => {
  it('an admission: the embedded figures on the state read, and the receipt of the month and day charged', () => {
    const d = one(0, now, now + 100, -1, 7, 3) as LimitDecision
    const expected = decide(
      req,
      now,
      { key: now + 100, workspace: undefined },
      { workspaceMonth: 7, keyMonth: 3 },
    )
    expect(d).toEqual({
      ...expected.decision,
      charge: { workspaceId: 'ws_1', keyId: 'key_1', month: '2026-06', day: '15' },
    })
    expect(d).toMatchObject({ allowed: true, month: { remaining: 92 }, keyMonth: { remaining: 1 } })
    expect(d.keySecond).toEqual({ limit: 2, remaining: 0, reset: 1, window: 1 })
  })

  it("the receipt names the UTC month and day of the script's instant, at a month's last and first instant", () => {
    const last = Date.UTC(2026, 6, 1) - 0.001
    const first = Date.UTC(2026, 6, 1)
    for (const [at, month, day] of [
      [last, '2026-06', '30'],
      [first, '2026-07', '01'],
    ] as const) {
      const d = one(0, at, -1, -1, 0, 0) as LimitDecision
      expect(d.charge).toEqual({ workspaceId: 'ws_1', keyId: 'key_1', month, day })
    }
  })

  it('a refusal: its reason, Retry-After and what it would have left, and no receipt', () => {
    // the key's TAT 1.1 s ahead (2 a second: 500 ms an admission): the next admission fits in 600 ms
    const d = one(3, now, now + 1100, now, 7, 3) as LimitDecision
    expect(d).toMatchObject({ allowed: false, reason: 'key_rate', retryAfter: 1, charge: null })
    expect(d.month.remaining).toBe(93)
  })

  it('a rate-only admission charges no month', () => {
    const d = one(0, now, -1, -1, 100, 5, { ...req, rateOnly: true })
    expect(d).toMatchObject({ allowed: true, charge: null, month: { remaining: 0 } })
  })

  it("a verdict the gateway does not reach on the same state is an error, not the gateway's figures", () => {
    // the script says refused (key rate) where the state admits, and admitted where it refuses
    expect(one(3, now, -1, -1, 0, 0)).toBeInstanceOf(Error)
    expect(one(0, now, now + 1600, -1, 0, 0)).toBeInstanceOf(Error)
    expect(one(2, now, -1, -1, 0, 4)).toBeInstanceOf(Error)
  })

  // A run: consecutive decisions of one key at one instant, answered as the values it started from, how
  // many it admitted and the reason of the rest; each decision is the one the embedded store takes after
  // the one before it (decide() chained on its own TATs and counts)
  it('a run: each decision is the embedded chain of decisions from the state the run started on', () => {
    // 2 a second: the key's bucket holds one more admission from a TAT 400 ms ahead, then refuses
    const reqs = [req, req, req, req]
    const chain: LimitDecision[] = []
    let tats = { key: (now + 400) as number | undefined, workspace: undefined as number | undefined }
    let counters = { workspaceMonth: 7, keyMonth: 3 }
    for (const r of reqs) {
      const d = decide(r, now, tats, counters)
      chain.push(d.decision)
      if (d.decision.allowed) {
        tats = { key: d.keyTat, workspace: d.workspaceTat }
        counters = { workspaceMonth: counters.workspaceMonth + 1, keyMonth: counters.keyMonth + 1 }
      }
    }
    expect(chain.map((d) => d.reason)).toEqual([null, 'key_rate', 'key_rate', 'key_rate'])
    const got = decodeRun([now, now + 400, -1, 7, 3, 1, 3], 0, reqs) as LimitDecision[]
    expect(got.map((d) => ({ ...d, charge: null }))).toEqual(chain)
    expect(got[0]!.charge).toEqual({ workspaceId: 'ws_1', keyId: 'key_1', month: '2026-06', day: '15' })
    expect(got.slice(1).map((d) => d.charge)).toEqual([null, null, null])
    // the key's quota (5) met after two admissions from 3: the rest refused for it, figures on the counts
    const many = { ...req, keyRatePerSecond: 1000, workspaceRatePerSecond: 1000 }
    const quota = decodeRun([now, -1, -1, 10, 3, 2, 2], 0, [many, many, many]) as LimitDecision[]
    expect(quota.map((d) => d.reason)).toEqual([null, null, 'key_quota'])
    expect(quota.map((d) => d.keyMonth?.remaining)).toEqual([1, 0, 0])
    expect(quota.map((d) => d.month.remaining)).toEqual([89, 88, 88])
  })

  it('a run whose count of admissions the gateway does not reach fails from there on; one that cannot be is an error', () => {
    // the script says all three admitted where the key's bucket (2 a second, TAT 400 ms ahead) holds one
    const got = decodeRun([now, now + 400, -1, 7, 3, 3, 0], 0, [req, req, req])
    expect(got[0]).toMatchObject({ allowed: true })
    expect(got[1]).toBeInstanceOf(Error)
    expect((got[1] as Error).message).toMatch(/verdict 0 differs from the gateway's 3/)
    expect(got[2]).toBe(got[1])
    // more admitted than the run holds, or a refusal without a reason
    for (const bad of [
      [now, -1, -1, 0, 0, 3, 0],
      [now, -1, -1, 0, 0, 1, 0],
    ]) {
      expect(decodeRun(bad, 0, [req, req]).every((d) => d instanceof Error)).toBe(true)
    }
    // the script's clock in neither month: every decision of the run an error
    expect(decodeRun([0, 0, 0, 0, 0, 0, -1], 0, [req, req]).map((d) => (d as Error).message)).toEqual([
      expect.stringMatching(/outside both months/),
      expect.stringMatching(/outside both months/),
    ])
  })

  it("settle: a run whose verdicts differ fails alone; the batch's other runs are answered", async () => {
    // three decisions in two runs (2 and 1): the first run admitted, the second claims a key_rate refusal
    const bytes = Buffer.alloc(2 * RUN_STRIDE * 8)
    for (const [i, v] of [now, -1, -1, 0, 0, 2, 0, now, -1, -1, 0, 0, 0, 3].entries())
      bytes.writeDoubleLE(v, i * 8)
    const answers = [0, 1, 2].map(() => Promise.withResolvers<LimitDecision>())
    settle(
      answers.map((a) => ({ req, resolve: a.resolve, reject: a.reject })),
      [2, 1],
      bytes,
    )
    await expect(answers[0]!.promise).resolves.toMatchObject({ allowed: true, month: { remaining: 99 } })
    await expect(answers[1]!.promise).resolves.toMatchObject({ allowed: true, month: { remaining: 98 } })
    await expect(answers[2]!.promise).rejects.toThrow(/verdict 3 differs from the gateway's 0/)
    // a reply of another length than the runs': every decision fails
    const lost = [0, 1].map(() => Promise.withResolvers<LimitDecision>())
    settle(
      lost.map((a) => ({ req, resolve: a.resolve, reject: a.reject })),
      [2],
      bytes,
    )
    await expect(lost[0]!.promise).rejects.toThrow(/112 bytes for 1 runs of 2 decisions/)
    await expect(lost[1]!.promise).rejects.toThrow(/112 bytes for 1 runs/)
  })
})
