import { hash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import Fastify from 'fastify'
import { hashEnvelope } from './hash-envelope.ts'
import { serveUntilTerm } from './serve.ts'

// The floor of what any gateway honouring the contract must add to bare Fastify: the bare handler plus
// a key check (sha256 of the bearer key, a Map lookup) and the three headers every /v1 response carries
// (Request-Id, RateLimit-Policy, RateLimit), with counters as plain numbers. No validation, metrics,
// logging, quotas or stores. Its ratio to bare Fastify in the same run bounds what the gateway can reach.
const [cert, key] = await Promise.all([
  readFile(process.env.TLS_CERT_FILE!, 'utf8'),
  readFile(process.env.TLS_KEY_FILE!, 'utf8'),
])
const keys = new Map([[hash('sha256', process.env.API_KEY!), { workspace: 'ws_floor' }]])
const POLICY = '"second";q=1000000;w=1, "workspace-second";q=1000000;w=1, "month";q=2000000000;w=2592000'
let served = 0

const app = Fastify({ http2: true, https: { allowHTTP1: true, cert, key, noDelay: true } })
app.post('/v1/hash/:algorithm', async function floorHash(request, reply) {
  const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')
  if (!bearer || !keys.has(hash('sha256', bearer[1]!))) return reply.code(401).send({ ok: false })
  served++
  reply.header('request-id', `req_floor${served.toString(36).padStart(8, '0')}`)
  reply.header('ratelimit-policy', POLICY)
  reply.header(
    'ratelimit',
    `"second";r=999999;t=1, "workspace-second";r=999999;t=1, "month";r=${2_000_000_000 - served};t=729873`,
  )
  const { algorithm } = request.params as { algorithm: string }
  return hashEnvelope(algorithm, (request.body as { input: string }).input)
})
await serveUntilTerm(app)
