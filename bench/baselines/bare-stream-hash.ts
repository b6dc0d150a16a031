import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:https'
import { answeredReadiness } from './serve.ts'

// The floor for streamed hashing: Node's own HTTPS server (no framework, no gateway) feeding the request
// body straight into sha256, same certificate. What the gateway's octet-stream path is measured against
// besides in-process crypto: the TLS read path and the loopback copy cost the same for any Node server.
const [cert, key] = await Promise.all([
  readFile(process.env.TLS_CERT_FILE!, 'utf8'),
  readFile(process.env.TLS_KEY_FILE!, 'utf8'),
])
const server = createServer({ cert, key }, function bareStreamHash(req, res) {
  if (answeredReadiness(req, res)) return
  const hash = createHash('sha256')
  let bytes = 0
  req.on('data', (chunk: Buffer) => {
    bytes += chunk.length
    hash.update(chunk)
  })
  req.on('end', () => {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ ok: true, data: { digest: hash.digest('hex'), input_bytes: bytes } }))
  })
})
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number }
  process.stdout.write(`READY https://127.0.0.1:${port}\n`)
})
process.once('SIGTERM', () => server.close(() => process.exit(0)))
