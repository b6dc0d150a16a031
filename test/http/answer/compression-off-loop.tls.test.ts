import { createRequire, syncBuiltinESMExports } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../../helpers/harness.ts'
import { h1Request, h2Request, type RawResponse } from '../../helpers/tls-client.ts'

// node:zlib as CommonJS sees it (ES module imports of it are kept in step by syncBuiltinESMExports, below):
// the synchronous compressors and the stream constructors any compression code would call
type Zlib = Record<string, unknown>
const zlib = createRequire(import.meta.url)('node:zlib') as Zlib
const brotliDecompressSync = zlib.brotliDecompressSync as (b: Buffer) => Buffer
const gunzipSync = zlib.gunzipSync as (b: Buffer) => Buffer
const COMPRESSORS = /^create(BrotliCompress|Gzip|Deflate|DeflateRaw|ZstdCompress)$/

// Every synchronous zlib function (brotliCompressSync, gzipSync, deflateSync… and their inverses) counts
// its calls, and so does every compressing stream constructor; ES module imports of node:zlib see the
// same wrappers (syncBuiltinESMExports). Installed before the app is imported and built, so nothing in it
// can hold an unwrapped reference. The test decompresses with the originals, taken above.
const syncCalls: string[] = []
const streams: string[] = []
const originals = new Map<string, PropertyDescriptor>()
function spyOnZlib(): void {
  for (const [name, fn] of Object.entries(zlib)) {
    if (typeof fn !== 'function') continue
    const sync = name.endsWith('Sync')
    const compressor = COMPRESSORS.exec(name)?.[1]
    if (!sync && !compressor) continue
    const descriptor = Object.getOwnPropertyDescriptor(zlib, name)!
    originals.set(name, descriptor)
    // the stream constructors are read-only (but configurable) properties: redefined, not assigned
    Object.defineProperty(zlib, name, {
      ...descriptor,
      value: function spiedZlib(this: unknown, ...args: unknown[]) {
        if (sync) syncCalls.push(name)
        else streams.push(compressor!)
        return (fn as (...a: unknown[]) => unknown).apply(this, args)
      },
    })
  }
  syncBuiltinESMExports()
}
function restoreZlib(): void {
  for (const [name, descriptor] of originals) Object.defineProperty(zlib, name, descriptor)
  syncBuiltinESMExports()
}

// a JSON document of `items` small objects; /v1/json/format answers it pretty-printed (about 2.5x)
const documentOf = (items: number) =>
  JSON.stringify(Array.from({ length: items }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'] })))

function decoded(res: RawResponse): Buffer {
  const coding = res.headers['content-encoding']
  if (coding === 'br') return brotliDecompressSync(res.body)
  if (coding === 'gzip') return gunzipSync(res.body)
  return res.body
}

// Compression must never run on the event loop (src/http/answer/compression.ts: zlib's stream API on libuv's
// threadpool). A real TLS gateway in this process, whose zlib is watched: JSON answers
// from just above the compression threshold to megabytes are compressed (br and gzip) through streams
// and decompress to the identity answer's bytes, and no synchronous zlib function is ever called; an
// answer below the threshold is not compressed at all. Fails if the compression moves to zlib's
// synchronous calls (as @fastify/compress, used before, did for answers under its syncThreshold).
describe('compression never runs on the event loop', () => {
  let t: TestApp
  let COMPRESS_THRESHOLD: number
  beforeAll(async () => {
    spyOnZlib()
    const { startTestApp } = await import('../../helpers/harness.ts')
    ;({ COMPRESS_THRESHOLD } = await import('../../../src/http/answer/compression.ts'))
    t = await startTestApp({ listen: true })
  })
  afterAll(async () => {
    await t?.close()
    restoreZlib()
  })

  const post = (path: string, body: string, extra: Record<string, string> = {}, h2 = false) =>
    (h2 ? h2Request : h1Request)(t.url, {
      method: 'POST',
      path,
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json', ...extra },
      body,
      ca: t.tls!.cert,
    })

  it.each([
    ['just above the threshold', 20, false],
    ['tens of KiB', 400, false],
    ['megabytes (pool, over HTTP/2)', 40_000, true],
  ] as const)(
    '%s: br and gzip through zlib streams, right bytes, no synchronous zlib call',
    async (_, items, h2) => {
      const body = JSON.stringify({ input: documentOf(items), mode: 'pretty' })
      const plain = await post('/v1/json/format', body, {}, h2)
      expect(plain.status, plain.body.toString().slice(0, 200)).toBe(200)
      expect(plain.headers['content-encoding']).toBeUndefined()
      expect(plain.body.length).toBeGreaterThan(COMPRESS_THRESHOLD)
      const formatted = JSON.parse(plain.body.toString('utf8')).data.output as string
      expect(JSON.parse(formatted)).toHaveLength(items)

      for (const [accept, coding, compressor] of [
        ['br, gzip', 'br', 'BrotliCompress'],
        ['gzip', 'gzip', 'Gzip'],
      ] as const) {
        const before = streams.filter((s) => s === compressor).length
        const res = await post('/v1/json/format', body, { 'accept-encoding': accept }, h2)
        expect(res.status).toBe(200)
        expect(res.headers['content-encoding']).toBe(coding)
        expect(res.body.length).toBeLessThan(plain.body.length / 2)
        expect(decoded(res).equals(plain.body)).toBe(true)
        // compressed by a zlib stream (libuv's threadpool), one per answer
        expect(streams.filter((s) => s === compressor).length).toBe(before + 1)
      }
      expect(syncCalls).toEqual([])
    },
  )

  it('below the threshold: not compressed, no compressor made; no synchronous zlib call since boot', async () => {
    const before = streams.length
    const small = await post('/v1/hash/sha256', '{"input":"hello"}', { 'accept-encoding': 'br, gzip' })
    expect(small.status).toBe(200)
    expect(small.body.length).toBeLessThan(COMPRESS_THRESHOLD)
    expect(small.headers['content-encoding']).toBeUndefined()
    expect(small.json()).toMatchObject({ ok: true, data: { algorithm: 'sha256' } })
    expect(streams.length).toBe(before)
    expect(syncCalls).toEqual([])
  })
})
