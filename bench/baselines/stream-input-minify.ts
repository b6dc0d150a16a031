import { readFile } from 'node:fs/promises'
import { createServer } from 'node:https'
import { isMainThread, parentPort, Worker } from 'node:worker_threads'
import { okEnvelopeValueBytes } from '../../src/lib/envelope.ts'
import { formatResultJson } from '../../src/ops/json/format/envelope.ts'
import { formatResultOf } from '../../src/ops/json/format/format.ts'
import {
  createJsonStream,
  endJsonStream,
  jsonStreamWarnings,
  writeJsonStream,
} from '../../src/ops/json/format/stream.ts'

// The streaming floor for the {input} form of json/format: what the gateway could at best do if it
// formatted the `input` string on a thread of its own while the body streams in. Node's own HTTPS server
// (no framework, no gateway, no pool) gathers the body into batches of 256 KiB and moves each to one worker
// thread (at normal priority, no admission, no budget, no acknowledgements), which knows the body's shape in advance
// ({"input":"…","mode":"minify"}, as the bench sends it, so it can minify before `mode` arrives): it
// unescapes the chunk's part of the `input` string to UTF-8 bytes and feeds them to the same streaming
// formatter; at the end it puts the output in the same envelope by the same code as the gateway's pool
// thread and moves it back to be sent. It handles only what the bench sends (anything else is a 500), one
// request at a time; the gateway must answer every body.
const PREFIX = Buffer.from('{"input":"')
// the byte a one-letter escape stands for, by the letter's code: \" \\ \/ \b \f \n \r \t
const SIMPLE: Record<number, number> = {
  34: 0x22,
  92: 0x5c,
  47: 0x2f,
  98: 8,
  102: 12,
  110: 10,
  114: 13,
  116: 9,
}

// The `input` string's content, unescaped chunk by chunk (an escape split between chunks is carried over).
function inputUnescaper() {
  let seen = 0
  let carry = Buffer.alloc(0)
  let high = -1
  let done = false
  return function unescapeChunk(chunk: Buffer): Uint8Array {
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk
    carry = Buffer.alloc(0)
    let r = 0
    if (seen < PREFIX.length) {
      const take = Math.min(PREFIX.length - seen, bytes.length)
      if (!bytes.subarray(0, take).equals(PREFIX.subarray(seen, seen + take)))
        throw new Error('not {"input":…')
      seen += take
      r = take
    }
    const out = Buffer.allocUnsafe(bytes.length)
    let w = 0
    while (r < bytes.length && !done) {
      const c = bytes[r]!
      if (c === 0x22) done = true
      else if (c !== 0x5c) {
        out[w++] = c
        r++
      } else if (r + 1 >= bytes.length || (bytes[r + 1] === 0x75 && r + 6 > bytes.length)) {
        carry = Buffer.from(bytes.subarray(r))
        break
      } else if (bytes[r + 1] !== 0x75) {
        out[w++] = SIMPLE[bytes[r + 1]!]!
        r += 2
      } else {
        const unit = Number.parseInt(bytes.toString('latin1', r + 2, r + 6), 16)
        r += 6
        if (unit >= 0xd800 && unit < 0xdc00) high = unit
        else {
          const cp =
            unit >= 0xdc00 && unit < 0xe000 ? 0x10000 + ((high - 0xd800) << 10) + (unit - 0xdc00) : unit
          w += out.write(String.fromCodePoint(cp), w)
          high = -1
        }
      }
    }
    return out.subarray(0, w)
  }
}

// One message a TLS record (16 KiB, ~1,100 a body) made this floor 192 ms against the whole-body floor's
// 161; batches of 64 KiB, 256 KiB and 1 MiB gave 180, 173 and 186 ms (one run each, 2026-11-28).
const BATCH = Number(process.env.STREAM_INPUT_BATCH ?? 256 * 1024)

type Message = { t: 'chunk'; chunk: Uint8Array } | { t: 'end' }

// the worker: one request's body at a time, from its first chunk to its end
function serveThread(): void {
  let unescapeInput = inputUnescaper()
  let stream = createJsonStream({ mode: 'minify', warnings: true, buffered: true })
  let held: Buffer[] = []
  let failed = false
  parentPort!.on('message', (message: Message) => {
    if (message.t === 'chunk') {
      if (failed) return
      try {
        const chunk = Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength)
        for (const piece of writeJsonStream(stream, unescapeInput(chunk))) held.push(piece)
      } catch {
        failed = true
      }
      return
    }
    let answer: Uint8Array | undefined
    try {
      if (!failed) {
        held.push(endJsonStream(stream))
        answer = okEnvelopeValueBytes(
          formatResultOf(Buffer.concat(held), jsonStreamWarnings(stream)),
          formatResultJson,
        )
      }
    } catch {
      // an input the floor does not handle (truncated, invalid): a 500, not a worker that never answers
      answer = undefined
    }
    parentPort!.postMessage(answer, answer ? [answer.buffer as ArrayBuffer] : [])
    unescapeInput = inputUnescaper()
    stream = createJsonStream({ mode: 'minify', warnings: true, buffered: true })
    held = []
    failed = false
  })
}

async function serveMain(): Promise<void> {
  const [cert, key] = await Promise.all([
    readFile(process.env.TLS_CERT_FILE!, 'utf8'),
    readFile(process.env.TLS_KEY_FILE!, 'utf8'),
  ])
  const thread = new Worker(new URL(import.meta.url))
  const server = createServer({ cert, key }, function streamInputMinify(req, res) {
    // chunks are gathered into batches of BATCH bytes, each a buffer of its own moved to the thread
    let batch = new Uint8Array(BATCH)
    let filled = 0
    const flush = () => {
      const own = filled === BATCH ? batch : batch.slice(0, filled)
      thread.postMessage({ t: 'chunk', chunk: own } satisfies Message, [own.buffer])
      batch = new Uint8Array(BATCH)
      filled = 0
    }
    req.on('data', (chunk: Buffer) => {
      let at = 0
      while (at < chunk.length) {
        const take = Math.min(BATCH - filled, chunk.length - at)
        batch.set(chunk.subarray(at, at + take), filled)
        filled += take
        at += take
        if (filled === BATCH) flush()
      }
    })
    req.on('end', () => {
      if (filled > 0) flush()
      thread.once('message', (answer: Uint8Array | undefined) => {
        if (answer === undefined) {
          res.statusCode = 500
          return res.end()
        }
        res.setHeader('content-type', 'application/json; charset=utf-8')
        res.end(answer)
      })
      thread.postMessage({ t: 'end' } satisfies Message)
    })
  })
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number }
    process.stdout.write(`READY https://127.0.0.1:${port}\n`)
  })
  process.once('SIGTERM', () => server.close(() => void thread.terminate().then(() => process.exit(0))))
}

if (isMainThread) await serveMain()
else serveThread()
