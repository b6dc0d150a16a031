import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import https from 'node:https'
import { setPriority, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { canary } from '../../helpers/canary.ts'
import { type ServerProcess, startServerProcess } from '../../helpers/server-process.ts'
import { rssOf } from '../../helpers/stream-client.ts'

const KiB = 1024
const MiB = 1024 * KiB
const RAW = { accept: 'application/octet-stream' }

const UPLOADER = new URL('../../helpers/upload-child.ts', import.meta.url).pathname

// One raw upload from a child process at nice 10 (a client on another machine, in effect): the canary's own
// process then measures the gateway, not its own uploader's TLS work.
function uploadFromChild(
  server: ServerProcess,
  path: string,
  body: { head: Buffer; piece: Buffer; count: number; tail: Buffer },
): Promise<{ status: number; bytes: number; sha256: string; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [UPLOADER], { stdio: ['pipe', 'pipe', 'inherit'] })
    if (child.pid) setPriority(child.pid, 10)
    child.stdin.end(
      JSON.stringify({
        url: `${server.url}${path}`,
        ca: server.ca,
        key: server.firstKey,
        accept: 'application/octet-stream',
        head: body.head.toString('base64'),
        piece: body.piece.toString('base64'),
        count: body.count,
        tail: body.tail.toString('base64'),
      }),
    )
    let out = ''
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString()
    })
    child.once('error', reject)
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`uploader exited ${code}`)),
    )
  })
}

// The gateway runs in its own process so its event loop and RSS are measured alone.
describe('raw bodies streamed to the pool keep the event loop and memory flat', () => {
  let server: ServerProcess
  let dataDir: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-stream-pool-'))
    server = await startServerProcess({ DATA_DIR: dataDir, DEFAULT_PLAN: 'business', LOG_LEVEL: 'warn' })
  }, 120_000)
  afterAll(async () => {
    await server.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('formats 32 MiB raw and a deeply nested body at indent 8 while /healthz never waits 250 ms', {
    timeout: 180_000,
  }, async () => {
    const record = Buffer.from(
      '{\n  "id": 12345678901234567890,\n  "name": "caf\\u00e9",\n  "tags": [ "a", "b" ]\n},\n',
    )
    const piece = Buffer.concat(Array.from({ length: Math.floor(MiB / record.length) }, () => record))
    // issue 14: 2,800 nested arrays at indent 8 (5.6 KB in, 62 MB out) held the event loop 2.2 s; now over
    // the output budget
    const depth = 2_800
    const nested = Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`)
    // the same canary with nothing to do first: on a machine loaded by other work the scheduler alone delays
    // it, and that is not the gateway's to answer for (logged, so a failure can be read)
    const quiet = await canary(server, () => new Promise((r) => setTimeout(r, 3_000)))
    const deep = await canary(server, () =>
      uploadFromChild(server, '/v1/json/format?indent=8', {
        head: nested,
        piece: Buffer.alloc(0),
        count: 0,
        tail: Buffer.alloc(0),
      }),
    )
    const big = await canary(server, () =>
      uploadFromChild(server, '/v1/json/format?mode=minify', {
        head: Buffer.from('['),
        piece,
        count: 32,
        tail: Buffer.from('null]'),
      }),
    )
    console.log(
      `canary worst: quiet ${quiet.worstMs.toFixed(0)} ms, nested at indent 8 ${deep.worstMs.toFixed(0)} ms, ` +
        `32 MiB minify ${big.worstMs.toFixed(0)} ms`,
    )
    // its 62 MB of indentation is over json/format's output budget (max(16 × input, 1 MiB)): refused with
    // 422 as soon as the budget is reached, on the thread, before the answer started
    expect(deep.result).toMatchObject({ status: 422 })
    expect(big.result).toMatchObject({ status: 200, complete: true })
    expect(deep.worstMs).toBeLessThan(250 + quiet.worstMs)
    expect(big.worstMs).toBeLessThan(250 + quiet.worstMs)
  })

  it('a client that reads slowly slows the upload, and the gateway RSS stays bounded', {
    timeout: 180_000,
  }, async () => {
    // pieces of a multiple of 3 bytes: the Base64 of the body is the Base64 of a piece, repeated
    const piece = Buffer.alloc(3 * 256 * KiB)
    for (let i = 0; i < piece.length; i++) piece[i] = (i * 31 + 7) & 0xff
    const pieces = 200
    const total = pieces * piece.length
    const encodedPiece = Buffer.from(piece.toString('base64'))
    const expectedOutput = createHash('sha256')
    for (let i = 0; i < pieces; i++) expectedOutput.update(encodedPiece)
    const pid = server.child.pid!
    const baseline = await rssOf(pid)
    let peak = baseline
    const sampler = setInterval(() => {
      void rssOf(pid).then((r) => {
        peak = Math.max(peak, r)
      })
    }, 10)
    let sent = 0
    const outcome = await new Promise<{
      status: number
      bytes: number
      digest: string
      sentWhilePaused: number
    }>((resolve, reject) => {
      const req = https.request(`${server.url}/v1/base64/encode`, {
        method: 'POST',
        ca: server.ca,
        agent: false,
        headers: {
          authorization: `Bearer ${server.firstKey}`,
          'content-type': 'application/octet-stream',
          'content-length': String(total),
          ...RAW,
        },
      })
      req.on('error', reject)
      req.on('response', (res) => {
        const digest = createHash('sha256')
        let bytes = 0
        // read nothing for 3 s: the gateway must stop reading the upload rather than buffer the answer
        res.pause()
        const pausedAt = sent
        setTimeout(() => {
          const sentWhilePaused = sent - pausedAt
          res.on('data', (c: Buffer) => {
            digest.update(c)
            bytes += c.length
          })
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, bytes, digest: digest.digest('hex'), sentWhilePaused }),
          )
          res.resume()
        }, 3_000)
      })
      const pump = () => {
        while (sent < total) {
          sent += piece.length
          if (!req.write(piece)) return void req.once('drain', pump)
        }
        req.end()
      }
      pump()
    })
    clearInterval(sampler)
    peak = Math.max(peak, await rssOf(pid))
    expect(outcome.status).toBe(200)
    expect(outcome.bytes).toBe(pieces * encodedPiece.length)
    expect(outcome.digest).toBe(expectedOutput.digest('hex'))
    // while the reader stalled, the upload stalled too: only the windows and socket buffers filled
    expect(outcome.sentWhilePaused).toBeLessThan(64 * MiB)
    expect((peak - baseline) / MiB).toBeLessThan(64)
  })
})
