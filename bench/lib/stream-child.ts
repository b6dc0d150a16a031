import { request } from 'node:https'
import { performance } from 'node:perf_hooks'

// `node bench/lib/stream-child.ts < options.json`: `lanes` clients, each uploading raw bodies of `bytes`
// (pretty-printed JSON records) to `url` one after another for `seconds`, reading the answers as they
// come; prints {uploads, failures, mib} as JSON. In its own process (at a nice value, like the flood in
// load-process.ts) so that its TLS work is not the probe's.
interface StreamLoadOptions {
  url: string
  key: string
  bytes: number
  lanes: number
  seconds: number
}

let input = ''
for await (const chunk of process.stdin) input += chunk
const options = JSON.parse(input) as StreamLoadOptions
const MiB = 1024 * 1024
const record =
  '  {\n    "id": 12345678901234567890,\n    "name": "caf\\u00e9",\n    "tags": [ "a", "b" ],\n    "ok": true\n  },\n'
const piece = Buffer.from(record.repeat(Math.floor(MiB / record.length)))
const count = Math.floor((options.bytes - 20) / piece.length)
const head = Buffer.from('[\n')
const tail = Buffer.from('  null\n]\n')
const total = head.length + count * piece.length + tail.length

function once(): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(options.url, {
      method: 'POST',
      rejectUnauthorized: false,
      agent: false,
      headers: {
        authorization: `Bearer ${options.key}`,
        'content-type': 'application/octet-stream',
        accept: 'application/octet-stream',
        'content-length': String(total),
      },
    })
    req.on('response', (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode === 200 && res.complete))
      res.on('error', () => resolve(false))
    })
    req.on('error', () => resolve(false))
    let sent = 0
    req.write(head)
    const pump = () => {
      while (sent < count) {
        sent++
        if (!req.write(piece)) return void req.once('drain', pump)
      }
      req.end(tail)
    }
    pump()
  })
}

const end = performance.now() + options.seconds * 1000
let uploads = 0
let failures = 0
async function lane(): Promise<void> {
  while (performance.now() < end) {
    if (await once()) uploads++
    else failures++
  }
}
await Promise.all(Array.from({ length: options.lanes }, lane))
process.stdout.write(`${JSON.stringify({ uploads, failures, mib: (uploads * total) / MiB })}\n`)
