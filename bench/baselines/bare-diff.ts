import { readFile } from 'node:fs/promises'
import { createServer } from 'node:https'
import { answerBytes, parseOpBytes } from '../../src/ops/answer.ts'
import { CATALOG } from '../../src/ops/catalog.ts'
import { prepareThread } from '../../workers/warmup.ts'
import { answeredReadiness } from './serve.ts'

// The floor for a JSON diff's first request (bench/first-request.ts) and for its warm requests, back to back
// and paced, and the memory they grow (bench/json-diff.ts): Node's own HTTPS server (no
// framework, no gateway, no pool) that reads the whole body and runs the diff on its event loop by the
// path a pool task takes (the body parsed and validated from its bytes, the op, the answer's bytes), same
// certificate. It warms up before it listens exactly as a pool thread does before it says it is warm
// (workers/warmup.ts: every op's warm inputs, then the memory-reducing collection), so its first request
// after READY pays what any fresh Node process pays, and nothing of the gateway's.
const [cert, key] = await Promise.all([
  readFile(process.env.TLS_CERT_FILE!, 'utf8'),
  readFile(process.env.TLS_KEY_FILE!, 'utf8'),
])
const diff = CATALOG.named('json.diff')!
await prepareThread({ warmUp: true }, CATALOG)
const server = createServer({ cert, key }, function bareDiff(req, res) {
  if (answeredReadiness(req, res)) return
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', async () => {
    const answer = answerBytes(
      diff,
      await diff.run(parseOpBytes(diff, chunks), { caps: {}, tenant: '' }),
      false,
    )
    res.setHeader('content-type', 'application/json')
    res.end(answer)
  })
})
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number }
  process.stdout.write(`READY https://127.0.0.1:${port}\n`)
})
process.once('SIGTERM', () => server.close(() => process.exit(0)))
