import { readFile } from 'node:fs/promises'
import Fastify from 'fastify'
import { hashEnvelope } from './hash-envelope.ts'
import { serveUntilTerm } from './serve.ts'

// The baseline: bare Fastify 5 on the same TLS setup (HTTP/2 + HTTP/1.1 via ALPN, same certificate)
// with the same handler and envelope, and none of the gateway's work (keys, limits, validation, metrics).
const [cert, key] = await Promise.all([
  readFile(process.env.TLS_CERT_FILE!, 'utf8'),
  readFile(process.env.TLS_KEY_FILE!, 'utf8'),
])
const app = Fastify({ http2: true, https: { allowHTTP1: true, cert, key, noDelay: true } })
app.post('/v1/hash/:algorithm', async function bareHash(request) {
  const { algorithm } = request.params as { algorithm: string }
  return hashEnvelope(algorithm, (request.body as { input: string }).input)
})
await serveUntilTerm(app)
