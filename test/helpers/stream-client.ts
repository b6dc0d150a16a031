import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import http2 from 'node:http2'
import https from 'node:https'
import type { ServerProcess } from './server-process.ts'

// Clients for large streamed bodies against a gateway process: the body is generated as it is sent and the
// answer is hashed as it arrives, so neither side of the test holds either in memory.

export interface StreamedAnswer {
  status: number
  contentType: string | undefined
  bytes: number
  sha256: string
  // the first KiB, for error envelopes
  head: string
  // ended normally (HTTP/1.1: the terminating chunk arrived; HTTP/2: END_STREAM without RST_STREAM)
  complete: boolean
  rstCode?: number
}

export async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024
}

// Peak RSS of `pid` above `baseline` while `work` runs, sampled every 10 ms.
export async function rssGrowth<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ result: T; growth: number }> {
  const baseline = await rssOf(pid)
  let peak = baseline
  const sampler = setInterval(() => {
    void rssOf(pid).then((r) => {
      peak = Math.max(peak, r)
    })
  }, 10)
  try {
    const result = await work()
    peak = Math.max(peak, await rssOf(pid))
    return { result, growth: peak - baseline }
  } finally {
    clearInterval(sampler)
  }
}

function answerSink() {
  const hash = createHash('sha256')
  let bytes = 0
  let head = ''
  return {
    data(chunk: Buffer) {
      hash.update(chunk)
      bytes += chunk.length
      if (head.length < 1024) head += chunk.subarray(0, 1024).toString('latin1')
    },
    done(
      status: number,
      contentType: string | undefined,
      complete: boolean,
      rstCode?: number,
    ): StreamedAnswer {
      return { status, contentType, bytes, sha256: hash.digest('hex'), head, complete, rstCode }
    },
  }
}

// A piece of body that waits until this many bytes of the answer have arrived (to send the rest after
// the answer has started).
export class AfterAnswer {
  readonly bytes: number
  constructor(bytes: number) {
    this.bytes = bytes
  }
}

// POST over HTTP/1.1 (TLS), writing the body's pieces with backpressure.
export function postStream(
  server: ServerProcess,
  path: string,
  headers: Record<string, string>,
  body: Iterable<Buffer | AfterAnswer>,
): Promise<StreamedAnswer> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${server.url}${path}`, {
      method: 'POST',
      ca: server.ca,
      agent: false,
      headers: {
        authorization: `Bearer ${server.firstKey}`,
        'content-type': 'application/octet-stream',
        ...headers,
      },
    })
    let answered = false
    let received = 0
    let waiting: AfterAnswer | undefined
    req.on('response', (res) => {
      answered = true
      const sink = answerSink()
      res.on('data', (chunk: Buffer) => {
        sink.data(chunk)
        received += chunk.length
        if (waiting && received >= waiting.bytes) {
          waiting = undefined
          pump()
        }
      })
      res.on('close', () =>
        resolve(sink.done(res.statusCode ?? 0, res.headers['content-type'], res.complete)),
      )
      res.on('error', () => {})
    })
    req.on('error', (err) => {
      // a reset after the answer began is reported by the answer itself
      if (!answered) reject(err)
    })
    const pieces = body[Symbol.iterator]()
    function pump(): void {
      for (let next = pieces.next(); !next.done; next = pieces.next()) {
        if (req.destroyed) return
        if (next.value instanceof AfterAnswer) {
          if (received >= next.value.bytes) continue
          waiting = next.value
          return
        }
        if (!req.write(next.value)) return void req.once('drain', pump)
      }
      req.end()
    }
    pump()
  })
}

// The same over HTTP/2.
export function postStreamHttp2(
  server: ServerProcess,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  late?: { after: number; tail: Buffer },
): Promise<StreamedAnswer> {
  return new Promise((resolve) => {
    const client = http2.connect(server.url, { ca: server.ca })
    client.on('error', () => {})
    const req = client.request({
      ':method': 'POST',
      ':path': path,
      authorization: `Bearer ${server.firstKey}`,
      'content-type': 'application/octet-stream',
      ...headers,
    })
    const sink = answerSink()
    let status = 0
    let contentType: string | undefined
    let ended = false
    req.on('response', (h) => {
      status = Number(h[':status'])
      contentType = h['content-type'] as string | undefined
    })
    let received = 0
    req.on('data', (chunk: Buffer) => {
      sink.data(chunk)
      received += chunk.length
      if (late && received >= late.after && !req.writableEnded) req.end(late.tail)
    })
    req.on('end', () => {
      ended = true
    })
    req.on('error', () => {})
    req.on('close', () => {
      resolve(
        sink.done(
          status,
          contentType,
          ended && req.rstCode === http2.constants.NGHTTP2_NO_ERROR,
          req.rstCode,
        ),
      )
      client.close()
    })
    if (late) req.write(body)
    else req.end(body)
  })
}

// A body made of `count` copies of `unit` between `head` and `tail`, sent in pieces of about 1 MiB.
export function* repeated(head: Buffer, unit: Buffer, count: number, tail: Buffer): Generator<Buffer> {
  yield head
  const perPiece = Math.max(1, Math.floor((1024 * 1024) / unit.length))
  const piece = Buffer.concat(Array.from({ length: perPiece }, () => unit))
  let left = count
  while (left >= perPiece) {
    yield piece
    left -= perPiece
  }
  if (left > 0) yield piece.subarray(0, left * unit.length)
  yield tail
}

export function sha256Of(pieces: Iterable<Buffer>): string {
  const hash = createHash('sha256')
  for (const piece of pieces) hash.update(piece)
  return hash.digest('hex')
}
