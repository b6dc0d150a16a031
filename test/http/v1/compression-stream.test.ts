import { createHash } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { twoLetterText } from '../../../src/ops/compression/worst.ts'
import { type ServerProcess, startServerProcess } from '../../helpers/server-process.ts'
import { postStream, rssGrowth } from '../../helpers/stream-client.ts'

const MiB = 1024 * 1024
const RAW = { accept: 'application/octet-stream' }

// 4 MiB of text that compresses about 6 to 1, and its gzip member: 32 of them are 128 MiB
const unit = Buffer.from(twoLetterText(4 * MiB))
const member = zlib.gzipSync(unit, { level: 1 })
const COUNT = 32

function* repeat(piece: Buffer, count: number): Generator<Buffer> {
  for (let i = 0; i < count; i++) yield piece
}

function sha256Repeated(piece: Buffer, count: number): string {
  const hash = createHash('sha256')
  for (let i = 0; i < count; i++) hash.update(piece)
  return hash.digest('hex')
}

// The gateway runs in its own process so its RSS is measured alone (as base64-stream.test.ts does).
describe('compression of raw bodies, streamed both ways at constant memory', () => {
  let server: ServerProcess
  let dataDir: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-compression-stream-'))
    server = await startServerProcess({ DATA_DIR: dataDir, DEFAULT_PLAN: 'business', LOG_LEVEL: 'warn' })
    // warm up TLS, JIT, the heap and the allocator
    await postStream(server, '/v1/decompress/gzip', RAW, repeat(member, 4))
    await postStream(server, '/v1/compress/gzip?level=1', RAW, repeat(unit, 4))
  }, 120_000)
  afterAll(async () => {
    await server.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('decompresses 32 concatenated gzip members to 128 MiB with the gateway RSS growing by less than 64 MiB', {
    timeout: 180_000,
  }, async () => {
    const { result, growth } = await rssGrowth(server.child.pid!, () =>
      postStream(server, '/v1/decompress/gzip', RAW, repeat(member, COUNT)),
    )
    expect(result).toMatchObject({ status: 200, complete: true, bytes: COUNT * unit.length })
    expect(result.sha256).toBe(sha256Repeated(unit, COUNT))
    expect(growth).toBeLessThan(64 * MiB)
  })

  it('compresses 128 MiB with the gateway RSS growing by less than 64 MiB', {
    timeout: 180_000,
  }, async () => {
    const { result, growth } = await rssGrowth(server.child.pid!, () =>
      postStream(server, '/v1/compress/zstd?level=3', RAW, repeat(unit, COUNT)),
    )
    expect(result).toMatchObject({ status: 200, complete: true })
    expect(result.bytes).toBeLessThan((COUNT * unit.length) / 3)
    expect(growth).toBeLessThan(64 * MiB)
  })
})
