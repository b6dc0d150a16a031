import { readFile } from 'node:fs/promises'
import rateLimit from '@fastify/rate-limit'
import Fastify from 'fastify'
import { Redis } from 'ioredis'
import { hashEnvelope } from './hash-envelope.ts'
import { serveUntilTerm } from './serve.ts'

// What people assemble with Fastify's own plugin: @fastify/rate-limit on its Redis store (one Lua call
// per request, auto-pipelined ioredis, as its docs recommend), keyed by the API key, on the same TLS
// setup and handler as bare-fastify.ts. The limit is set high so the benchmark measures the work.
const [cert, key] = await Promise.all([
  readFile(process.env.TLS_CERT_FILE!, 'utf8'),
  readFile(process.env.TLS_KEY_FILE!, 'utf8'),
])
const redis = new Redis(process.env.REDIS_URL!, { enableAutoPipelining: true, connectTimeout: 1_000 })
const app = Fastify({ http2: true, https: { allowHTTP1: true, cert, key, noDelay: true } })
await app.register(rateLimit, {
  redis,
  max: 1_000_000_000,
  timeWindow: 1_000,
  keyGenerator: (request) => request.headers.authorization ?? request.ip,
})
app.post('/v1/hash/:algorithm', async function limitedHash(request) {
  const { algorithm } = request.params as { algorithm: string }
  return hashEnvelope(algorithm, (request.body as { input: string }).input)
})
await serveUntilTerm(app, async () => redis.disconnect())
