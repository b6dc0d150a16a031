import { createHash, createHmac } from 'node:crypto'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inlineUpTo } from '../../../src/exec/costs.ts'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../../helpers/harness.ts'
import { opNamed } from '../../helpers/ops.ts'

// Issue 14: routes with handlers of their own (hash, hmac, Base64, json/format) hand a large JSON body to the
// pool as bytes, parsed and validated there, with what the handler adds (the path's algorithm, a raw-bytes
// answer) travelling with it; and ops whose schema bounds their work send a large body to the pool too,
// since parsing it is their worst case. Nothing of such a body is parsed on the event loop.
let t: TestApp

beforeAll(async () => {
  t = await startTestApp()
}, 60_000)
afterAll(async () => {
  await t?.close()
})

function where(res: LightMyRequestResponse): string | undefined {
  return /dispatch;desc="([^"]+)"/.exec(String(res.headers['server-timing']))?.[1]
}

const octets = { accept: 'application/octet-stream' }

// anvil_dispatch_total{op, mode="pool"}: a refusal from the pool has no Server-Timing, but it was counted
async function pooled(op: string): Promise<number> {
  const res = await t.admin.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  })
  const line = new RegExp(
    `^anvil_dispatch_total\\{op="${op.replaceAll('.', '\\.')}",mode="pool"\\} (\\S+)$`,
    'm',
  )
  return Number(line.exec(res.body)?.[1] ?? Number.NaN)
}

describe('a large JSON body of a route with a handler runs on the pool', () => {
  const text = 'x'.repeat(inlineUpTo(opNamed('hash')) + 1024)

  it('hash: the algorithm comes from the path, JSON or raw answer', async () => {
    const res = await t.post('/v1/hash/SHA256', { input: text, output_encoding: 'base64' })
    expect(res.statusCode).toBe(200)
    expect(where(res)).toBe('paid')
    expect(res.json().data).toEqual({
      algorithm: 'sha256',
      digest: createHash('sha256').update(text).digest('base64'),
      output_encoding: 'base64',
      input_bytes: text.length,
    })
    const raw = await t.post('/v1/hash/sha256', { input: text }, octets)
    expect(where(raw)).toBe('paid')
    expect(raw.headers['content-type']).toBe('application/octet-stream')
    expect(raw.rawPayload.equals(createHash('sha256').update(text).digest())).toBe(true)
  })

  it('hash: an unknown algorithm and a misspelt field get the answers they get inline', async () => {
    const unknown = await t.post('/v1/hash/sha3000', { input: text })
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json().error.code).toBe('ERR_UNSUPPORTED_ALGORITHM')
    const typo = await t.post('/v1/hash/sha256', { input: text, outptu_encoding: 'base64' })
    expect(typo.statusCode).toBe(400)
    expect(typo.json().error.code).toBe('ERR_VALIDATION')
    expect(JSON.stringify(typo.json().error.details)).toContain('output_encoding')
  })

  it('hmac: the algorithm comes from the path', async () => {
    const res = await t.post('/v1/hmac/sha512', { input: text, key: 'k' })
    expect(res.statusCode).toBe(200)
    expect(where(res)).toBe('paid')
    expect(res.json().data.digest).toBe(createHmac('sha512', 'k').update(text).digest('hex'))
  })

  it('base64 encode and decode, answered as JSON or as raw bytes', async () => {
    const input = 'é'.repeat(inlineUpTo(opNamed('base64.encode')))
    const json = await t.post('/v1/base64/encode', { input })
    expect(where(json)).toBe('paid')
    expect(json.json().data).toEqual({ output: Buffer.from(input).toString('base64'), variant: 'standard' })
    const raw = await t.post('/v1/base64/encode', { input, variant: 'url' }, octets)
    expect(where(raw)).toBe('paid')
    expect(raw.payload).toBe(Buffer.from(input).toString('base64url'))
    const encoded = Buffer.from(input).toString('base64')
    const decoded = await t.post('/v1/base64/decode', { input: encoded }, octets)
    expect(where(decoded)).toBe('paid')
    expect(decoded.rawPayload.equals(Buffer.from(input))).toBe(true)
  })

  it('json/format, answered as JSON or as raw bytes', async () => {
    const input = JSON.stringify(
      Array.from({ length: inlineUpTo(opNamed('json.format')) / 8 }, (_, i) => ({ i })),
    )
    const json = await t.post('/v1/json/format', { input, mode: 'minify' })
    expect(where(json)).toBe('paid')
    expect(json.json().data).toEqual({ output: input, bytes: input.length })
    const raw = await t.post(
      '/v1/json/format',
      { input: JSON.stringify(JSON.parse(input), null, 2), mode: 'minify' },
      octets,
    )
    expect(where(raw)).toBe('paid')
    expect(raw.headers['content-type']).toBe('application/octet-stream')
    expect(raw.payload).toBe(input)
  })
})

describe('ops whose schema bounds their work parse a large body on the pool', () => {
  it('a small body is inline; a large one is parsed, and refused, on the pool', async () => {
    const small = await t.post('/v1/time/timestamp', { value: '1710055800123' })
    expect(small.statusCode).toBe(200)
    expect(where(small)).toBeUndefined()
    const padding = 'é\n'.repeat(inlineUpTo(opNamed('time.timestamp')) / 2)
    const before = await pooled('time.timestamp')
    const large = await t.post('/v1/time/timestamp', { value: '1710055800123', padding })
    expect(large.statusCode).toBe(400)
    expect(await pooled('time.timestamp')).toBe(before + 1)
    expect(large.json().error.code).toBe('ERR_VALIDATION')
    expect(JSON.stringify(large.json().error.details)).toContain('padding')
  })
})
