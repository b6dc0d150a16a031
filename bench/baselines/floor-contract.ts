import { hash } from 'node:crypto'
import { write } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import Fastify from 'fastify'
import { Counter, Histogram, Registry } from 'prom-client'
import { z } from 'zod'
import { hashEnvelope } from './hash-envelope.ts'
import { redisDecider } from './redis-decide.ts'
import { serveUntilTerm } from './serve.ts'

// The floor (floor.ts) plus what the contract makes the gateway do for every keyed request, each in the
// simplest form a careful hand would write, with no configuration, no other routes and no error paths to
// keep: the body and the path checked by zod schemas of the same shape as the route's (a strict object with
// two defaults; a string), the key's two rates and the workspace's two quotas charged (GCRA on plain
// numbers, four RateLimit counters from them), the request counted and timed in prom-client (a child
// resolved once), one access line a request (the pino-http shape, written in 64 KiB batches), and the key
// marked used. The gateway's ratio to this floor, in the same run, is what its own structure costs beyond
// the features the contract asks of it (docs/dispatch.md, "The lane's floor"). With REDIS_URL the key's
// rates and the workspace's quotas are decided on Redis instead, by the gateway's own consume.lua with the
// decisions of one event-loop turn in one call (bench/baselines/redis-decide.ts, as the gateway batches
// them): the contract floor the gateway on Redis is measured against (bench/small-hash-redis.ts).
const [cert, key] = await Promise.all([
  readFile(process.env.TLS_CERT_FILE!, 'utf8'),
  readFile(process.env.TLS_KEY_FILE!, 'utf8'),
])
const keys = new Map([[hash('sha256', process.env.API_KEY!), { id: 'key_floor', workspace: 'ws_floor' }]])
const POLICY = '"second";q=1000000;w=1, "workspace-second";q=1000000;w=1, "month";q=2000000000;w=2592000'
const RATE = 1_000_000
const HOST = hostname()
const MONTH = 2_000_000_000

const body = z.strictObject({
  input: z.string(),
  input_encoding: z.enum(['utf8', 'hex', 'base64', 'base64url']).default('utf8'),
  output_encoding: z.enum(['hex', 'base64', 'base64url']).default('hex'),
  length: z.coerce.number().int().min(1).max(1024).optional(),
})
const params = z.object({ algorithm: z.string().max(64) })

// GCRA (the gateway's algorithm): the theoretical arrival time per key and per workspace
const tat = new Map<string, number>()
function charge(id: string, perSecond: number, now: number): number {
  const interval = 1000 / perSecond
  const next = Math.max(tat.get(id) ?? now, now) + interval
  tat.set(id, next)
  return Math.max(0, Math.floor((1000 - (next - now)) / interval))
}
// the four RateLimit counters, charged on Redis (undefined when refused)
async function redisRates(found: { id: string; workspace: string }): Promise<string | undefined> {
  const d = await onRedis!.decide({
    workspaceId: found.workspace,
    keyId: found.id,
    keyRatePerSecond: RATE,
    workspaceRatePerSecond: RATE,
    monthlyQuota: MONTH,
    keyMonthlyQuota: null,
  })
  if (!d.allowed) return undefined
  return `"second";r=${d.keySecond.remaining};t=${d.keySecond.reset}, "workspace-second";r=${d.workspaceSecond.remaining};t=${d.workspaceSecond.reset}, "month";r=${d.month.remaining};t=${d.month.reset}`
}
// or in memory: GCRA and two counts
function memoryRates(found: { id: string; workspace: string }, now: number): string {
  const keyLeft = charge(found.id, RATE, now)
  const workspaceLeft = charge(found.workspace, RATE, now)
  const month = (used.get(found.workspace) ?? 0) + 1
  used.set(found.workspace, month)
  used.set(found.id, (used.get(found.id) ?? 0) + 1)
  return `"second";r=${keyLeft};t=1, "workspace-second";r=${workspaceLeft};t=1, "month";r=${MONTH - month};t=729873`
}
const onRedis = process.env.REDIS_URL ? await redisDecider(process.env.REDIS_URL, 'batched') : undefined
const used = new Map<string, number>()
const lastUsed = new Map<string, number>()

const registry = new Registry()
const labelNames = ['route', 'method', 'status_class', 'plan'] as const
const requests = new Counter({ name: 'requests_total', help: 'requests', labelNames, registers: [registry] })
const duration = new Histogram({
  name: 'request_duration_seconds',
  help: 'duration',
  labelNames,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
})
const labels = { route: '/v1/hash/:algorithm', method: 'POST', status_class: '2xx', plan: 'business' }
const counted = requests.labels(labels)
const timed = duration.labels(labels)

let pending: string[] = []
let pendingSize = 0
function logLine(line: string): void {
  pending.push(line)
  pendingSize += line.length
  if (pendingSize < 65536) return
  const data = Buffer.from(pending.join(''), 'utf8')
  pending = []
  pendingSize = 0
  write(1, data, () => {})
}

let served = 0
const app = Fastify({ http2: true, https: { allowHTTP1: true, cert, key, noDelay: true } })
app.setValidatorCompiler(({ schema }) => {
  const zod = schema as z.ZodType
  return (data: unknown) => {
    const r = zod.safeParse(data)
    return r.success ? { value: r.data } : { error: new Error(r.error.message) }
  }
})
app.addHook('onResponse', function recordFloor(request, reply, done) {
  const seconds = reply.elapsedTime / 1000
  counted.inc()
  timed.observe(seconds)
  logLine(
    `{"level":30,"time":${Date.now()},"pid":${process.pid},"hostname":"${HOST}","req":{"id":"${request.id}","method":"POST","url":"/v1/hash/:algorithm"},` +
      `"res":{"statusCode":${reply.statusCode}},"responseTime":${Math.round(seconds * 1e5) / 100},"workspace":"ws_floor","msg":"request completed"}\n`,
  )
  done()
})
app.post(
  '/v1/hash/:algorithm',
  { schema: { body, params } },
  async function contractFloorHash(request, reply) {
    const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')
    const found = bearer ? keys.get(hash('sha256', bearer[1]!)) : undefined
    if (found === undefined) return reply.code(401).send({ ok: false })
    const now = Date.now()
    const rates = onRedis ? await redisRates(found) : memoryRates(found, now)
    if (rates === undefined) return reply.code(429).send({ ok: false })
    lastUsed.set(found.id, now)
    served++
    reply.header('request-id', `req_floor${served.toString(36).padStart(8, '0')}`)
    reply.header('ratelimit-policy', POLICY)
    reply.header('ratelimit', rates)
    const { algorithm } = request.params as { algorithm: string }
    return hashEnvelope(algorithm, (request.body as { input: string }).input)
  },
)
await serveUntilTerm(app, async () => onRedis?.quit())
