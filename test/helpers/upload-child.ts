import { createHash } from 'node:crypto'
import { request } from 'node:https'

// `node test/helpers/upload-child.ts < options.json`: one raw upload to a gateway, in its own process, so
// that a test measuring the gateway's latency meanwhile does not measure its own client's TLS work. The
// body is `head`, then `piece` `count` times, then `tail` (base64 in the options); prints
// {status, bytes, sha256, complete} of the answer as JSON.
interface UploadOptions {
  url: string
  ca: string
  key: string
  accept?: string
  // application/octet-stream unless given (a large JSON body: application/json)
  contentType?: string
  head: string
  piece: string
  count: number
  tail: string
}

let input = ''
for await (const chunk of process.stdin) input += chunk
const options = JSON.parse(input) as UploadOptions
const [head, piece, tail] = [options.head, options.piece, options.tail].map((b) =>
  Buffer.from(b, 'base64'),
) as [Buffer, Buffer, Buffer]
const total = head.length + options.count * piece.length + tail.length
const req = request(options.url, {
  method: 'POST',
  ca: options.ca,
  agent: false,
  headers: {
    authorization: `Bearer ${options.key}`,
    'content-type': options.contentType ?? 'application/octet-stream',
    'content-length': String(total),
    ...(options.accept ? { accept: options.accept } : {}),
  },
})
req.on('response', (res) => {
  const hash = createHash('sha256')
  let bytes = 0
  res.on('data', (c: Buffer) => {
    hash.update(c)
    bytes += c.length
  })
  res.on('end', () => {
    const answer = { status: res.statusCode, bytes, sha256: hash.digest('hex'), complete: res.complete }
    process.stdout.write(`${JSON.stringify(answer)}\n`)
  })
})
req.on('error', (err) => {
  process.stderr.write(`${err.message}\n`)
  process.exit(1)
})
req.write(head)
let sent = 0
function pump(): void {
  while (sent < options.count) {
    sent++
    if (!req.write(piece)) return void req.once('drain', pump)
  }
  req.end(tail)
}
pump()
