import { mkdtemp, rm } from 'node:fs/promises'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatJson } from '../../../src/ops/json/format/format.ts'
import { type ServerProcess, startServerProcess } from '../../helpers/server-process.ts'
import {
  AfterAnswer,
  postStream,
  postStreamHttp2,
  repeated,
  rssGrowth,
  sha256Of,
} from '../../helpers/stream-client.ts'

const MiB = 1024 * 1024
const RAW = { accept: 'application/octet-stream' }

// One record, pretty-printed, with what must survive: a big integer, escapes, multi-byte UTF-8.
const record =
  '{\n    "id": 12345678901234567890,\n    "name": "caf\\u00e9 😀 \\"q\\"",\n    "tags": [ "a", "b" ],\n    "ok": true,\n    "none": null,\n    "x": -1.5e-7\n  }'
const pretty = Buffer.from(record, 'utf8')
const minified = Buffer.from(formatJson({ input: record, mode: 'minify' }).output, 'utf8')

// '[' + count × (record ',') + record + ']' and what minify makes of it.
function documentOf(count: number) {
  const comma = Buffer.from(',\n  ')
  return {
    body: () =>
      repeated(
        Buffer.from('[\n  '),
        Buffer.concat([pretty, comma]),
        count,
        Buffer.concat([pretty, Buffer.from('\n]\n')]),
      ),
    minified: () =>
      repeated(
        Buffer.from('['),
        Buffer.concat([minified, Buffer.from(',')]),
        count,
        Buffer.concat([minified, Buffer.from(']')]),
      ),
    bytes: 4 + count * (pretty.length + comma.length) + pretty.length + 3,
  }
}

// The gateway runs in its own process so its RSS is measured alone, without the client's buffers.
describe('JSON format of a raw body, streamed both ways through a gateway process', () => {
  let server: ServerProcess
  let dataDir: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-format-stream-'))
    server = await startServerProcess({ DATA_DIR: dataDir, DEFAULT_PLAN: 'business', LOG_LEVEL: 'warn' })
  })
  afterAll(async () => {
    await server.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('minifies a 256 MiB body over TLS with the gateway RSS growing by less than 64 MiB', {
    timeout: 180_000,
  }, async () => {
    // warm up TLS, JIT, the key cache, the heap and the allocator's arenas (RSS climbs to a plateau over the
    // first ~100 MiB whatever their size): what is measured after this is what a body's size adds, and a
    // buffering implementation would add the whole body
    const warmUp = documentOf(Math.ceil((48 * MiB) / pretty.length))
    for (let round = 0; round < 2; round++) {
      const warm = await postStream(server, '/v1/json/format?mode=minify', RAW, warmUp.body())
      expect(warm.sha256).toBe(sha256Of(warmUp.minified()))
    }

    const doc = documentOf(Math.ceil((256 * MiB) / (pretty.length + 4)))
    expect(doc.bytes).toBeGreaterThanOrEqual(256 * MiB)
    const headers = { ...RAW, 'content-length': String(doc.bytes) }
    const { result, growth } = await rssGrowth(server.child.pid!, () =>
      postStream(server, '/v1/json/format?mode=minify', headers, doc.body()),
    )
    expect(result).toMatchObject({ status: 200, contentType: 'application/octet-stream', complete: true })
    expect(result.sha256).toBe(sha256Of(doc.minified()))
    expect(growth).toBeLessThan(64 * MiB)
  })

  it('answers an error found in the first MiB of output with its status and position', async () => {
    const res = await postStream(server, '/v1/json/format', RAW, [Buffer.from('[1,\n'), Buffer.from(' 2,]')])
    expect(res.status).toBe(400)
    expect(JSON.parse(res.head).error).toMatchObject({
      code: 'ERR_INVALID_JSON',
      details: { line: 2, column: 4, offset: 7, byte_offset: 7, reason: 'Trailing comma before ]' },
    })
  })

  // 2 MiB of records; the trailing comma is sent once 1 MiB of the answer has arrived
  const prefix = Buffer.concat([...documentOf(Math.ceil((2 * MiB) / minified.length)).body()].slice(0, -1))
  const tail = Buffer.from(',]')

  it('breaks off an HTTP/1.1 answer when the error comes later: the connection is reset', async () => {
    const res = await postStream(server, '/v1/json/format?mode=minify', RAW, [
      prefix,
      new AfterAnswer(MiB),
      tail,
    ])
    expect(res.status).toBe(200)
    expect(res.bytes).toBeGreaterThanOrEqual(MiB)
    expect(res.complete).toBe(false)
  })

  it('breaks off an HTTP/2 answer with RST_STREAM INTERNAL_ERROR, never a normal end', async () => {
    const res = await postStreamHttp2(server, '/v1/json/format?mode=minify', RAW, prefix, {
      after: MiB,
      tail,
    })
    expect(res.status).toBe(200)
    expect(res.bytes).toBeGreaterThanOrEqual(MiB)
    expect(res.complete).toBe(false)
    expect(res.rstCode).toBe(2)
    const ok = await postStreamHttp2(server, '/v1/json/format?mode=minify', RAW, Buffer.from('[ 1 ]'))
    expect(ok).toMatchObject({ status: 200, complete: true, bytes: 3 })
  })

  it('refuses a declared body over 100 MiB answered as JSON before reading it', async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = https.request(`${server.url}/v1/json/format`, {
        method: 'POST',
        ca: server.ca,
        agent: false,
        headers: {
          authorization: `Bearer ${server.firstKey}`,
          'content-type': 'application/octet-stream',
          'content-length': String(100 * MiB + 1),
        },
      })
      req.on('response', (r) => {
        let body = ''
        r.on('data', (c: Buffer) => {
          body += c.toString()
        })
        r.on('end', () => {
          resolve({ status: r.statusCode ?? 0, body })
          req.destroy()
        })
      })
      req.on('error', reject)
      req.write('[')
    })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body).error).toMatchObject({
      code: 'ERR_PAYLOAD_TOO_LARGE',
      details: { limit_bytes: 100 * MiB },
    })
  })
})
