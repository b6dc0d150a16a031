import { hash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import Fastify from 'fastify'
import { Redis } from 'ioredis'
import { ConsumeBatcher, encodeBatch, settle } from '../../src/store/redis/consume-batch.ts'
import { RedisKeys } from '../../src/store/redis/keys.ts'
import { candidateMonths } from '../../src/store/redis/limit-reply.ts'
import type { ConsumeRequest, LimitDecision } from '../../src/store/types.ts'
import { hashEnvelope } from './hash-envelope.ts'
import { serveUntilTerm } from './serve.ts'

// The floor on Redis: bare Fastify plus what any gateway honouring the contract on a shared Redis must do
// per request: a key check (sha256 of the bearer key, a Map lookup), an atomic limit decision in Redis
// (the gateway's own consume.lua) and the three headers every /v1 response carries, built from the
// decision. No validation, metrics, logging, deadline or store abstraction. FLOOR_SCRIPT=oneline: the
// decision is a one-line script instead (below). FLOOR_BATCH=1: the decisions
// of one event-loop turn leave as one call, through the store's own batcher (src/store/redis/
// consume-batch.ts), as the gateway sends them; otherwise each decision is a call of its own (a batch of
// one), as every request was decided before batching. Its CPU per request in the same run bounds what the
// gateway on Redis can reach on this machine.
const [cert, key, script] = await Promise.all([
  readFile(process.env.TLS_CERT_FILE!, 'utf8'),
  readFile(process.env.TLS_KEY_FILE!, 'utf8'),
  readFile(new URL('../../src/store/redis/consume.lua', import.meta.url), 'utf8'),
])
const keys = new Map([[hash('sha256', process.env.API_KEY!), { workspace: 'ws_floor', id: 'key_floor' }]])
const redis = new Redis(process.env.REDIS_URL!, {
  enableAutoPipelining: true,
  autoPipeliningIgnoredCommands: ['anvilConsume', 'anvilOneLine'],
  maxRetriesPerRequest: 0,
})
redis.defineCommand('anvilConsume', { lua: script })
const send = (args: (string | number | (string | number)[])[]) => redis.anvilConsumeBuffer(...args)
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
    now: '',
    resolve,
    reject,
  }
  send(encodeBatch([one])).then((reply) => settle([one], reply), reject)
  return promise
}
// FLOOR_SCRIPT=oneline: the decision is a one-line script, one counter moved by the turn's decisions
// (issue 41's floor: what any decision on Redis costs, a round trip and a script call, whatever the
// script), batched per turn of the event loop as the gateway batches; every decision is the same
// admission, so the headers are built as they are for consume.lua's.
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

const decide =
  process.env.FLOOR_SCRIPT === 'oneline'
    ? decideOneLine
    : process.env.FLOOR_BATCH === '1'
      ? (req: ConsumeRequest) => batcher.decide(req, candidateMonths(Date.now()), '')
      : decideAlone

const POLICY = '"second";q=1000000;w=1, "workspace-second";q=1000000;w=1, "month";q=2000000000;w=2592000'

const app = Fastify({ http2: true, https: { allowHTTP1: true, cert, key, noDelay: true } })
app.post('/v1/hash/:algorithm', async function floorRedisHash(request, reply) {
  const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')
  const found = bearer && keys.get(hash('sha256', bearer[1]!))
  if (!found) return reply.code(401).send({ ok: false })
  const d = await decide({
    workspaceId: found.workspace,
    keyId: found.id,
    keyRatePerSecond: 1_000_000,
    workspaceRatePerSecond: 1_000_000,
    monthlyQuota: 2_000_000_000,
    keyMonthlyQuota: null,
  })
  if (!d.allowed) return reply.code(429).send({ ok: false })
  reply.header('request-id', `req_floor${Date.now().toString(36)}`)
  reply.header('ratelimit-policy', POLICY)
  reply.header(
    'ratelimit',
    `"second";r=${d.keySecond.remaining};t=${d.keySecond.reset}, "workspace-second";r=${d.workspaceSecond.remaining};t=${d.workspaceSecond.reset}, "month";r=${d.month.remaining};t=${d.month.reset}`,
  )
  const { algorithm } = request.params as { algorithm: string }
  return hashEnvelope(algorithm, (request.body as { input: string }).input)
})
await serveUntilTerm(app, async () => redis.quit())
