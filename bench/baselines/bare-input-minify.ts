import { readFile } from 'node:fs/promises'
import { createServer } from 'node:https'
import { okEnvelopeValueBytes } from '../../src/lib/envelope.ts'
import { formatResultJson } from '../../src/ops/json/format/envelope.ts'
import { formatJson } from '../../src/ops/json/format/format.ts'

// The floor for the {input} form of json/format: Node's own HTTPS server (no framework, no gateway, no
// pool) reading the whole JSON body, parsing it, formatting its `input` with the same formatter and
// answering the same envelope, made by the same code as the gateway's pool thread (the printed bytes
// escaped into the answer), on its event loop; same certificate. What the gateway's {input} form is
// measured against: the work any server must do when the document arrives as a JSON string and the
// answer is held whole (a late error is still a 400).
const [cert, key] = await Promise.all([
  readFile(process.env.TLS_CERT_FILE!, 'utf8'),
  readFile(process.env.TLS_KEY_FILE!, 'utf8'),
])
const server = createServer({ cert, key }, function bareInputMinify(req, res) {
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string; mode?: 'minify' }
    const result = formatJson({ input: body.input, mode: body.mode ?? 'pretty', indent: 2, sort_keys: false })
    res.setHeader('content-type', 'application/json; charset=utf-8')
    res.end(okEnvelopeValueBytes(result, formatResultJson))
  })
})
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number }
  process.stdout.write(`READY https://127.0.0.1:${port}\n`)
})
process.once('SIGTERM', () => server.close(() => process.exit(0)))
