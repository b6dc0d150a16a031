import { readFile } from 'node:fs/promises'
import { Redis } from 'ioredis'
import { type BatchArgs, ConsumeBatcher, encodeBatch, settle } from '../../src/store/redis/consume-batch.ts'
import { RedisKeys } from '../../src/store/redis/keys.ts'
import { candidateMonths } from '../../src/store/redis/limit-reply.ts'
import type { ConsumeRequest, LimitDecision } from '../../src/store/types.ts'

// How a floor decides a request's limits on Redis (floor-redis.ts, floor-contract.ts with REDIS_URL):
// 'alone': each decision a call of the gateway's own consume.lua, as every request was decided before
// batching; 'batched': the decisions of one event-loop turn leave as one call, through the store's own
// batcher (src/store/redis/consume-batch.ts), as the gateway sends them; 'oneline': a one-line script
// instead, one counter moved by the turn's decisions (issue 41's floor: what any decision on Redis costs, a
// round trip and a script call, whatever the script), every decision the same admission.
export type RedisDecision = 'alone' | 'batched' | 'oneline'

export async function redisDecider(url: string, mode: RedisDecision) {
  const script = await readFile(new URL('../../src/store/redis/consume.lua', import.meta.url), 'utf8')
  const redis = new Redis(url, {
    enableAutoPipelining: true,
    autoPipeliningIgnoredCommands: ['anvilConsume', 'anvilOneLine'],
    maxRetriesPerRequest: 0,
  })
  redis.defineCommand('anvilConsume', { lua: script })
  const send = (args: BatchArgs) => redis.anvilConsumeBuffer(...args)
  const usageKeys = new RedisKeys('floor')
  const batcher = new ConsumeBatcher(usageKeys, send, false)

  function decideAlone(req: ConsumeRequest): Promise<LimitDecision> {
    const months = candidateMonths(Date.now())
    const { promise, resolve, reject } = Promise.withResolvers<LimitDecision>()
    const one = {
      req,
      usageA: usageKeys.usage(req.workspaceId, months[0].label),
      usageB: usageKeys.usage(req.workspaceId, months[1].label),
      months,
      now: undefined,
      resolve,
      reject,
    }
    const { args, runs } = encodeBatch([one])
    send(args).then((reply) => settle([one], runs, reply), reject)
    return promise
  }
  // 'oneline': every decision is the same admission, so the headers are built as they are for consume.lua's
  redis.defineCommand('anvilOneLine', {
    numberOfKeys: 1,
    lua: "return redis.call('HINCRBY', KEYS[1], 'n', ARGV[1])",
  })
  const admitted = (limit: number, window: number): LimitDecision['keySecond'] => ({
    limit,
    remaining: limit - 1,
    reset: 1,
    window,
  })
  const ONE_LINE_DECISION: LimitDecision = {
    allowed: true,
    charge: null,
    reason: null,
    retryAfter: 0,
    keySecond: admitted(1_000_000, 1),
    workspaceSecond: admitted(1_000_000, 1),
    month: admitted(2_000_000_000, 2_592_000),
    keyMonth: null,
  }
  const oneLine = redis as unknown as { anvilOneLine(key: string, count: number): Promise<number> }
  let turn: { resolve(d: LimitDecision): void; reject(err: unknown): void }[] = []
  function decideOneLine(): Promise<LimitDecision> {
    const { promise, resolve, reject } = Promise.withResolvers<LimitDecision>()
    if (turn.length === 0) {
      setImmediate(() => {
        const batch = turn
        turn = []
        oneLine.anvilOneLine('floor:{ws_floor}:n', batch.length).then(
          () => {
            for (const p of batch) p.resolve(ONE_LINE_DECISION)
          },
          (err: unknown) => {
            for (const p of batch) p.reject(err)
          },
        )
      })
    }
    turn.push({ resolve, reject })
    return promise
  }

  const decide: (req: ConsumeRequest) => Promise<LimitDecision> =
    mode === 'oneline'
      ? decideOneLine
      : mode === 'batched'
        ? (req) => batcher.decide(req, candidateMonths(Date.now()), undefined)
        : decideAlone
  return { decide, quit: () => redis.quit() }
}
