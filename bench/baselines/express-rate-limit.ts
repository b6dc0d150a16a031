import { readFile } from 'node:fs/promises'
import https from 'node:https'
import express from 'express'
import { rateLimit } from 'express-rate-limit'
import { Redis } from 'ioredis'
import { RedisStore } from 'rate-limit-redis'
import { hashEnvelope } from './hash-envelope.ts'

// The Express stack people assemble: express + express-rate-limit + rate-limit-redis (fixed window, one
// Lua call per request), keyed by the API key, on HTTPS with the same certificate and handler.
const [cert, key] = await Promise.all([
  readFile(process.env.TLS_CERT_FILE!, 'utf8'),
  readFile(process.env.TLS_KEY_FILE!, 'utf8'),
])
const redis = new Redis(process.env.REDIS_URL!, { enableAutoPipelining: true, connectTimeout: 1_000 })
const app = express()
app.use(express.json())
app.use(
  rateLimit({
    windowMs: 1_000,
    limit: 1_000_000_000,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: (req) => req.headers.authorization ?? 'anonymous',
    store: new RedisStore({
      sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as Promise<number>,
    }),
  }),
)
app.post('/v1/hash/:algorithm', function limitedHash(req, res) {
  res.json(hashEnvelope(req.params.algorithm, (req.body as { input: string }).input))
})
const server = https.createServer({ cert, key }, app)
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number }
  process.stdout.write(`READY https://127.0.0.1:${port}\n`)
})
process.once('SIGTERM', () => {
  server.close(() => void redis.quit().finally(() => process.exit(0)))
  server.closeAllConnections()
})
