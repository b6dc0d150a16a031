import { hash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import Fastify from 'fastify'
import { hashEnvelope } from './hash-envelope.ts'
import { redisDecider } from './redis-decide.ts'
import { serveUntilTerm } from './serve.ts'

// The floor on Redis: bare Fastify plus what any gateway honouring the contract on a shared Redis must do
// per request: a key check (sha256 of the bearer key, a Map lookup), an atomic limit decision in Redis
// (the gateway's own consume.lua) and the three headers every /v1 response carries, built from the
// decision. No validation, metrics, logging, deadline or store abstraction. FLOOR_SCRIPT=oneline: the
// decision is a one-line script instead; FLOOR_SCRIPT=io: a script that reads and writes what a run's
// decision must, deciding nothing (redis-decide.ts). FLOOR_BATCH=1: the decisions
// of one event-loop turn leave as one call, through the store's own batcher (src/store/redis/
// consume-batch.ts), as the gateway sends them; otherwise each decision is a call of its own (a batch of
// one), as every request was decided before batching. Its CPU per request in the same run bounds what the
// gateway on Redis can reach on this machine.
const [cert, key] = await Promise.all([
  readFile(process.env.TLS_CERT_FILE!, 'utf8'),
  readFile(process.env.TLS_KEY_FILE!, 'utf8'),
])
const keys = new Map([[hash('sha256', process.env.API_KEY!), { workspace: 'ws_floor', id: 'key_floor' }]])
const { decide, quit } = await redisDecider(
  process.env.REDIS_URL!,
  process.env.FLOOR_SCRIPT === 'oneline' || process.env.FLOOR_SCRIPT === 'io'
    ? process.env.FLOOR_SCRIPT
    : process.env.FLOOR_BATCH === '1'
      ? 'batched'
      : 'alone',
)

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
await serveUntilTerm(app, async () => {
  await quit()
})
