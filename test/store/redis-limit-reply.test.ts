import { describe, expect, it } from 'vitest'
import { decide } from '../../src/limits/decide.ts'
import { settle } from '../../src/store/redis/consume-batch.ts'
import { decodeDecision, REPLY_STRIDE } from '../../src/store/redis/limit-reply.ts'
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
const reply = (...values: number[]) => values

describe("consume.lua's reply, decoded", () => {
  it('an admission: the embedded figures on the state read, and the receipt of the month and day charged', () => {
    const d = decodeDecision(reply(0, now, now + 100, -1, 7, 3), 0, req) as LimitDecision
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
      const d = decodeDecision(reply(0, at, -1, -1, 0, 0), 0, req) as LimitDecision
      expect(d.charge).toEqual({ workspaceId: 'ws_1', keyId: 'key_1', month, day })
    }
  })

  it('a refusal: its reason, Retry-After and what it would have left, and no receipt', () => {
    // the key's TAT 1.1 s ahead (2 a second: 500 ms an admission): the next admission fits in 600 ms
    const d = decodeDecision(reply(3, now, now + 1100, now, 7, 3), 0, req) as LimitDecision
    expect(d).toMatchObject({ allowed: false, reason: 'key_rate', retryAfter: 1, charge: null })
    expect(d.month.remaining).toBe(93)
  })

  it('a rate-only admission charges no month', () => {
    const d = decodeDecision(reply(0, now, -1, -1, 100, 5), 0, { ...req, rateOnly: true })
    expect(d).toMatchObject({ allowed: true, charge: null, month: { remaining: 0 } })
  })

  it("a verdict the gateway does not reach on the same state is an error, not the gateway's figures", () => {
    // the script says refused (key rate) where the state admits, and admitted where it refuses
    expect(decodeDecision(reply(3, now, -1, -1, 0, 0), 0, req)).toBeInstanceOf(Error)
    expect(decodeDecision(reply(0, now, now + 1600, -1, 0, 0), 0, req)).toBeInstanceOf(Error)
    expect(decodeDecision(reply(2, now, -1, -1, 0, 4), 0, req)).toBeInstanceOf(Error)
  })

  it("settle: a decision whose verdicts differ fails alone; the batch's others are answered", async () => {
    const bytes = Buffer.alloc(2 * REPLY_STRIDE * 8)
    for (const [i, v] of [0, now, -1, -1, 0, 0, 3, now, -1, -1, 0, 0].entries()) bytes.writeDoubleLE(v, i * 8)
    const answers = [Promise.withResolvers<LimitDecision>(), Promise.withResolvers<LimitDecision>()]
    settle(
      answers.map((a) => ({ req, resolve: a.resolve, reject: a.reject })),
      bytes,
    )
    await expect(answers[0]!.promise).resolves.toMatchObject({ allowed: true })
    await expect(answers[1]!.promise).rejects.toThrow(/verdict 3 differs from the gateway's 0/)
  })
})
