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
// round trip and a script call, whatever the script), every decision the same admission; 'io': a script
// that reads and writes what an exact decision of a run must, and answers as much, deciding nothing (the
// turn's decisions one run: Redis TIME, one HMGET of the run's five fields, one HSET of them, a reply of 7
// packed doubles; what consume.lua's one-run path does besides deciding), every decision the same
// admission.
export type RedisDecision = 'alone' | 'batched' | 'oneline' | 'io'

// 'io''s script: consume.lua's one-run path without its decisions (the values written are the values read
// moved by the run's count; the field names are the floor's key's, the day's the 1st)
const IO_SCRIPT = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local n = tonumber(ARGV[1])
local got = redis.call('HMGET', KEYS[1], 'tw', 'tk:key_floor', 'requests', 'k:key_floor:requests', 'd:01')
local tw, tk = tonumber(got[1]) or now, tonumber(got[2]) or now
local ws, key, day = tonumber(got[3]) or 0, tonumber(got[4]) or 0, tonumber(got[5]) or 0
redis.call('HSET', KEYS[1], 'tw', now, 'tk:key_floor', now, 'requests', ws + n, 'k:key_floor:requests', key + n, 'd:01', day + n)
return struct.pack('<ddddddd', now, tk, tw, ws, key, n, 0)`

export async function redisDecider(url: string, mode: RedisDecision) {
  const script = await readFile(new URL('../../src/store/redis/consume.lua', import.meta.url), 'utf8')
  const redis = new Redis(url, {
    enableAutoPipelining: true,
    autoPipeliningIgnoredCommands: ['anvilConsume', 'anvilOneLine', 'anvilIo'],
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
  redis.defineCommand('anvilIo', { numberOfKeys: 1, lua: IO_SCRIPT })
  const scripts = redis as unknown as Record<
    'anvilOneLine' | 'anvilIoBuffer',
    (key: string, count: number) => Promise<unknown>
  >
  const turnScript = mode === 'io' ? scripts.anvilIoBuffer : scripts.anvilOneLine
  let turn: { resolve(d: LimitDecision): void; reject(err: unknown): void }[] = []
  // 'oneline' and 'io': the decisions of one event-loop turn leave as one call
  function decideTurn(): Promise<LimitDecision> {
    const { promise, resolve, reject } = Promise.withResolvers<LimitDecision>()
    if (turn.length === 0) {
      setImmediate(() => {
        const batch = turn
        turn = []
        turnScript.call(redis, 'floor:{ws_floor}:n', batch.length).then(
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
    mode === 'oneline' || mode === 'io'
      ? decideTurn
      : mode === 'batched'
        ? (req) => batcher.decide(req, candidateMonths(Date.now()), undefined)
        : decideAlone
  return { decide, quit: () => redis.quit() }
}
