import { readFile } from 'node:fs/promises'
import { createServer } from 'node:https'
import { createJsonStream, endJsonStream, writeJsonStream } from '../../src/ops/json/format/stream.ts'
import { answeredReadiness } from './serve.ts'

// The floor for streamed JSON minify: Node's own HTTPS server (no framework, no gateway, no pool) feeding
// the request body through the same streaming formatter on its event loop and writing the output back
// with backpressure, same certificate. What the gateway's raw json/format path is measured against.
const [cert, key] = await Promise.all([
  readFile(process.env.TLS_CERT_FILE!, 'utf8'),
  readFile(process.env.TLS_KEY_FILE!, 'utf8'),
])
const server = createServer({ cert, key }, function bareStreamMinify(req, res) {
  if (answeredReadiness(req, res)) return
  const declared = Number(req.headers['content-length'] ?? 0)
  const stream = createJsonStream({
    mode: 'minify',
    warnings: false,
    buffered: false,
    expected_bytes: declared,
  })
  res.setHeader('content-type', 'application/octet-stream')
  req.on('data', (chunk: Buffer) => {
    let full = false
    for (const piece of writeJsonStream(stream, chunk)) full = !res.write(piece) || full
    if (full) {
      req.pause()
      res.once('drain', () => req.resume())
    }
  })
  req.on('end', () => res.end(endJsonStream(stream)))
})
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number }
  process.stdout.write(`READY https://127.0.0.1:${port}\n`)
})
process.once('SIGTERM', () => server.close(() => process.exit(0)))
