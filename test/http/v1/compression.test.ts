import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { twoLetterText } from '../../../src/ops/compression/worst.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

const MiB = 1024 * 1024

describe('/v1/compress, /v1/decompress', () => {
  let t: TestApp
  let free: { key: string }
  beforeAll(async () => {
    // business decompresses at most 2 MiB here, so its cap is reached with small bodies
    t = await startTestApp({
      env: { PLANS: JSON.stringify({ business: { compression_max_output_bytes: 2 * MiB } }) },
    })
    free = await t.newWorkspace('free')
  })
  afterAll(() => t.close())

  const raw = (path: string, body: Buffer, headers: Record<string, string> = {}, key = t.key) =>
    t.app.inject({
      method: 'POST',
      url: path,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', ...headers },
      payload: body,
    })
  const json = (path: string, body: unknown, key = t.key, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: path,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(body),
    })

  it('JSON both ways; raw bytes for Accept: application/octet-stream', async () => {
    const packed = await json('/v1/compress/brotli', { input: 'hello hello hello', level: 11 })
    expect(packed.statusCode).toBe(200)
    expect(packed.json().data).toMatchObject({ algorithm: 'brotli', level: 11, output_encoding: 'base64' })
    const bytes = await json('/v1/compress/brotli', { input: 'hello hello hello', level: 11 }, t.key, {
      accept: 'application/octet-stream',
    })
    expect(bytes.headers['content-type']).toBe('application/octet-stream')
    expect(bytes.rawPayload.toString('base64')).toBe(packed.json().data.output)
    const back = await json('/v1/decompress/brotli', {
      input: packed.json().data.output,
      output_encoding: 'utf8',
    })
    expect(back.json().data.output).toBe('hello hello hello')
  })

  it('raw bodies both ways: raw answers, or the envelope with Base64 (or output_encoding)', async () => {
    // (text that compresses ~6 to 1: 'streamed text ' repeated would be a bomb to the ratio cap)
    const text = Buffer.from(twoLetterText(700_000))
    for (const algorithm of ['gzip', 'deflate', 'deflate-raw', 'brotli', 'zstd']) {
      const packed = await raw(`/v1/compress/${algorithm}?level=1`, text, {
        accept: 'application/octet-stream',
      })
      expect(packed.statusCode, algorithm).toBe(200)
      const back = await raw(`/v1/decompress/${algorithm}`, packed.rawPayload, {
        accept: 'application/octet-stream',
      })
      expect(back.rawPayload.equals(text), algorithm).toBe(true)
      const envelope = await raw(`/v1/decompress/${algorithm}?output_encoding=hex`, packed.rawPayload)
      expect(envelope.json().data).toMatchObject({
        algorithm,
        output_encoding: 'hex',
        output_bytes: text.length,
      })
      expect(Buffer.from(envelope.json().data.output, 'hex').equals(text)).toBe(true)
    }
    const gz = await raw('/v1/compress/gzip', text)
    expect(zlib.gunzipSync(Buffer.from(gz.json().data.output, 'base64')).equals(text)).toBe(true)
  })

  it('the level: outside the range 400, past the plan cap 422 before the body is read, each at the bound', async () => {
    expect((await raw('/v1/compress/gzip?level=9', Buffer.from('x'))).statusCode).toBe(200)
    const range = await raw('/v1/compress/gzip?level=10', Buffer.from('x'))
    expect(range.statusCode).toBe(400)
    expect(range.json().error.details.issues[0].path).toBe('level')
    expect((await raw('/v1/compress/gzip?level=6', Buffer.from('x'), {}, free.key)).statusCode).toBe(200)
    const capped = await raw('/v1/compress/gzip?level=7', Buffer.from('x'), {}, free.key)
    expect(capped.statusCode).toBe(422)
    expect(capped.json().error).toMatchObject({
      code: 'ERR_PLAN_CAP',
      details: { cap: 'compression_deflate_max_level', max: 6, requested: 7 },
    })
    const jsonCapped = await json('/v1/compress/zstd', { input: 'x', level: 13 }, free.key)
    expect(jsonCapped.json().error.details).toMatchObject({ cap: 'compression_zstd_max_level', max: 12 })
  })

  it('a bomb is refused with its 422 before a raw answer starts, naming the cap', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(64 * MiB), { level: 9 })
    const res = await raw('/v1/decompress/gzip', bomb, { accept: 'application/octet-stream' }, free.key)
    expect(res.statusCode).toBe(422)
    expect(res.json().error).toMatchObject({
      code: 'ERR_PLAN_CAP',
      details: { cap: 'compression_max_ratio', max: 100 },
    })
    // a zstd frame asking a 16 MiB window, on a plan that allows 8
    const wide = zlib.zstdCompressSync(Buffer.alloc(16 * MiB), {
      params: { [zlib.constants.ZSTD_c_windowLog]: 24 },
    })
    const window = await raw('/v1/decompress/zstd', wide, { accept: 'application/octet-stream' }, free.key)
    expect(window.json().error).toMatchObject({
      code: 'ERR_PLAN_CAP',
      details: { cap: 'compression_zstd_max_window_log', max: 23 },
    })
  })

  it('the output cap: exactly the cap answers, a byte more is refused (JSON answers, held whole)', async () => {
    const random = (n: number) =>
      Buffer.from(Array.from({ length: n }, (_, i) => (i * 7919 + (i >> 9)) & 0xff))
    const at = zlib.deflateSync(random(2 * MiB))
    const ok = await json('/v1/decompress/deflate', { input: at.toString('base64') })
    expect(ok.statusCode).toBe(200)
    expect(ok.json().data.output_bytes).toBe(2 * MiB)
    const over = await json('/v1/decompress/deflate', {
      input: zlib.deflateSync(random(2 * MiB + 1)).toString('base64'),
    })
    expect(over.statusCode).toBe(422)
    expect(over.json().error.details).toMatchObject({ cap: 'compression_max_output_bytes', max: 2 * MiB })
  })

  it('truncated and trailing data: 400 with the offset; an unknown algorithm: 400', async () => {
    const gz = zlib.gzipSync('hello')
    const truncated = await raw('/v1/decompress/gzip', gz.subarray(0, 20), {
      accept: 'application/octet-stream',
    })
    expect(truncated.statusCode).toBe(400)
    expect(truncated.json().error).toMatchObject({
      code: 'ERR_INVALID_COMPRESSED_DATA',
      details: { offset: 20, reason: 'truncated' },
    })
    const trailing = await raw(
      '/v1/decompress/deflate',
      Buffer.concat([zlib.deflateSync('x'), Buffer.from('!')]),
    )
    expect(trailing.json().error.details).toMatchObject({ offset: 9, reason: 'trailing_data' })
    const unknown = await raw('/v1/compress/lzma', Buffer.from('x'))
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json().error.code).toBe('ERR_UNSUPPORTED_ALGORITHM')
  })
})
