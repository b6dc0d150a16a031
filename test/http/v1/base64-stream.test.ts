import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../../helpers/server-process.ts'
import { AfterAnswer, postStream, repeated, rssGrowth, sha256Of } from '../../helpers/stream-client.ts'

const MiB = 1024 * 1024
const RAW = { accept: 'application/octet-stream' }
const EMPTY = Buffer.alloc(0)

// 57 bytes encode to one 76-character MIME line; a whole number of them keeps the encoding of the
// repetition the repetition of the encoding.
const line = Buffer.from(Array.from({ length: 57 }, (_, i) => (i * 71 + 13) & 0xff))
const encodedLine = Buffer.from(line.toString('base64'), 'latin1')
const mimeLine = Buffer.concat([encodedLine, Buffer.from('\r\n')])

function linesFor(bytes: number): number {
  return Math.ceil(bytes / 57)
}

// The gateway runs in its own process so its RSS is measured alone, without the client's buffers.
describe('Base64 of a raw body, streamed both ways through a gateway process', () => {
  let server: ServerProcess
  let dataDir: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-base64-stream-'))
    server = await startServerProcess({ DATA_DIR: dataDir, DEFAULT_PLAN: 'business', LOG_LEVEL: 'warn' })
    // warm up TLS, JIT, the heap and the allocator (see json-format-stream.test.ts)
    for (let round = 0; round < 2; round++) {
      const count = linesFor(48 * MiB)
      await postStream(server, '/v1/base64/encode', RAW, repeated(EMPTY, line, count, EMPTY))
      await postStream(server, '/v1/base64/decode', RAW, repeated(EMPTY, mimeLine, count, EMPTY))
    }
  })
  afterAll(async () => {
    await server.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('encodes a 256 MiB body with the gateway RSS growing by less than 64 MiB', {
    timeout: 180_000,
  }, async () => {
    const count = linesFor(256 * MiB)
    const headers = { ...RAW, 'content-length': String(count * line.length) }
    const { result, growth } = await rssGrowth(server.child.pid!, () =>
      postStream(server, '/v1/base64/encode', headers, repeated(EMPTY, line, count, EMPTY)),
    )
    expect(result).toMatchObject({ status: 200, complete: true, bytes: count * encodedLine.length })
    expect(result.sha256).toBe(sha256Of(repeated(EMPTY, encodedLine, count, EMPTY)))
    expect(growth).toBeLessThan(64 * MiB)
  })

  it('decodes 256 MiB of MIME-wrapped Base64 with the gateway RSS growing by less than 64 MiB', {
    timeout: 180_000,
  }, async () => {
    const count = Math.ceil((256 * MiB) / mimeLine.length)
    const { result, growth } = await rssGrowth(server.child.pid!, () =>
      postStream(server, '/v1/base64/decode', RAW, repeated(EMPTY, mimeLine, count, EMPTY)),
    )
    expect(result).toMatchObject({ status: 200, complete: true, bytes: count * line.length })
    expect(result.sha256).toBe(sha256Of(repeated(EMPTY, line, count, EMPTY)))
    expect(growth).toBeLessThan(64 * MiB)
  })

  it('answers a bad character in the first MiB of output with 400 and its byte offset', async () => {
    const res = await postStream(server, '/v1/base64/decode?strict=true', RAW, [mimeLine])
    expect(res.status).toBe(400)
    expect(JSON.parse(res.head).error).toMatchObject({
      code: 'ERR_INVALID_BASE64',
      details: { position: 76 },
    })
  })

  it('breaks the answer off when a bad character comes after the first MiB', async () => {
    const count = linesFor(2 * MiB)
    const body = [...repeated(EMPTY, mimeLine, count, EMPTY), new AfterAnswer(MiB), Buffer.from('!')]
    const res = await postStream(server, '/v1/base64/decode', RAW, body)
    expect(res.status).toBe(200)
    expect(res.bytes).toBeGreaterThanOrEqual(MiB)
    expect(res.complete).toBe(false)
  })
})
