import { hash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import Fastify from 'fastify'
import { Redis } from 'ioredis'
import { hashEnvelope } from './hash-envelope.ts'
import { serveUntilTerm } from './serve.ts'

// The floor on Redis: bare Fastify plus what any gateway honouring the contract on a shared Redis must do
// per request: a key check (sha256 of the bearer key, a Map lookup), one atomic limit decision in Redis
// (the gateway's own consume.lua, EVALSHA through ioredis with auto-pipelining, as the gateway sends it)
// and the three headers every /v1 response carries, built from the decision. No validation, metrics,
// logging, deadline or store abstraction. Its CPU per request in the same run bounds what the gateway on
// Redis can reach on this machine.
const [cert, key, script] = await Promise.all([
  readFile(process.env.TLS_CERT_FILE!, 'utf8'),
  readFile(process.env.TLS_KEY_FILE!, 'utf8'),
  readFile(new URL('../../src/store/redis/consume.lua', import.meta.url), 'utf8'),
])
const keys = new Map([[hash('sha256', process.env.API_KEY!), { workspace: 'ws_floor', id: 'key_floor' }]])
const redis = new Redis(process.env.REDIS_URL!, { enableAutoPipelining: true, maxRetriesPerRequest: 0 })
redis.defineCommand('anvilConsume', { lua: script, numberOfKeys: 2 })
const consume = (redis as unknown as { anvilConsume: (...args: (string | number)[]) => Promise<number[]> })
  .anvilConsume
const MONTH = new Date()
const start = Date.UTC(MONTH.getUTCFullYear(), MONTH.getUTCMonth(), 1)
const end = Date.UTC(MONTH.getUTCFullYear(), MONTH.getUTCMonth() + 1, 1)
const POLICY = '"second";q=1000000;w=1, "workspace-second";q=1000000;w=1, "month";q=2000000000;w=2592000'

const app = Fastify({ http2: true, https: { allowHTTP1: true, cert, key } })
app.post('/v1/hash/:algorithm', async function floorRedisHash(request, reply) {
  const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')
  const found = bearer && keys.get(hash('sha256', bearer[1]!))
  if (!found) return reply.code(401).send({ ok: false })
  const usage = `floor:{ws:${found.workspace}}:usage`
  const d = await consume.call(
    redis,
    `${usage}:a`,
    `${usage}:b`,
    found.id,
    1_000_000,
    1_000_000,
    2_000_000_000,
    -1,
    '',
    start,
    end,
    end,
    end + 1,
  )
  if (d[0] !== 1) return reply.code(429).send({ ok: false })
  reply.header('request-id', `req_floor${Date.now().toString(36)}`)
  reply.header('ratelimit-policy', POLICY)
  reply.header(
    'ratelimit',
    `"second";r=${d[3]};t=${d[4]}, "workspace-second";r=${d[5]};t=${d[6]}, "month";r=${d[7]};t=${d[8]}`,
  )
  const { algorithm } = request.params as { algorithm: string }
  return hashEnvelope(algorithm, (request.body as { input: string }).input)
})
await serveUntilTerm(app, async () => redis.quit())
