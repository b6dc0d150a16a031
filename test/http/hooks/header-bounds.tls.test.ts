import type { FastifyRequest } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkOrigin } from '../../../src/http/console/csrf.ts'
import { traceContext } from '../../../src/http/hooks/trace.ts'
import { HEADER_BOUNDS } from '../../../src/lib/header-bounds.ts'
import { parseHost } from '../../../src/lib/host-allowlist.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { h1Request, h2Request, type RawResponse } from '../../helpers/tls-client.ts'

type Envelope = { error: { code: string; details: Record<string, unknown> } }

// `head`, then spaces, then `tail`: exactly `length` characters (spaces inside a value, where a field may
// have whitespace: HTTP/1.1 trims a value's ends, HTTP/2 refuses them)
const padded = (head: string, tail: string, length: number) =>
  `${head}${' '.repeat(length - head.length - tail.length)}${tail}`
// n elements joined by `separator`
const list = (n: number, item: string, separator: string) =>
  Array.from({ length: n }, () => item).join(separator)

// Each header the gateway parses, at its bound and one past it, over HTTP/1.1 and HTTP/2 (issue 36 item 3).
describe('request headers: at the bound read, one past refused or read as absent', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ listen: true, unthrottled: true })
  })
  afterAll(() => t?.close())

  for (const [protocol, send] of [
    ['HTTP/1.1', h1Request],
    ['HTTP/2', h2Request],
  ] as const) {
    const hash = (headers: Record<string, string>, body = '{"input":"abc"}') =>
      send(t.url, {
        method: 'POST',
        path: '/v1/hash/sha256',
        ca: t.tls!.cert,
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json', ...headers },
        body,
      })
    const refused = (r: RawResponse, header: string) => {
      expect(r.status).toBe(431)
      const { error } = r.json<Envelope>()
      expect(error.code).toBe('ERR_HEADER_TOO_LARGE')
      expect(error.details.header).toBe(header)
    }

    it(`${protocol}: Accept, 1 KiB and 32 ranges (431 past either, before the key is checked)`, async () => {
      const bound = HEADER_BOUNDS.accept
      expect((await hash({ accept: padded('application/json', ',x/y', bound.bytes) })).status).toBe(200)
      refused(await hash({ accept: padded('application/json', ',x/y', bound.bytes + 1) }), 'Accept')
      expect((await hash({ accept: `application/octet-stream,${list(31, 'x/y', ',')}` })).status).toBe(200)
      refused(await hash({ accept: `application/octet-stream,${list(32, 'x/y', ',')}` }), 'Accept')
      // refused before the access rule: no key needed to get the 431, nothing charged
      const before = (await t.runtime.store.usage(t.workspaceId)).workspace.requests
      refused(await hash({ accept: list(33, 'x/y', ','), authorization: 'Bearer nope' }), 'Accept')
      expect((await t.runtime.store.usage(t.workspaceId)).workspace.requests).toBe(before)
    })

    it(`${protocol}: Content-Type, 256 bytes and 8 elements`, async () => {
      const bound = HEADER_BOUNDS['content-type']
      expect((await hash({ 'content-type': padded('application/json', '; a=1', bound.bytes) })).status).toBe(
        200,
      )
      refused(
        await hash({ 'content-type': padded('application/json', '; a=1', bound.bytes + 1) }),
        'Content-Type',
      )
      expect((await hash({ 'content-type': `application/json;${list(7, 'a=1', ';')}` })).status).toBe(200)
      refused(await hash({ 'content-type': `application/json;${list(8, 'a=1', ';')}` }), 'Content-Type')
    })

    it(`${protocol}: Authorization, 1 KiB`, async () => {
      const bound = HEADER_BOUNDS.authorization
      expect((await hash({ authorization: padded('Bearer', ` ${t.key}`, bound.bytes) })).status).toBe(200)
      refused(await hash({ authorization: padded('Bearer', ` ${t.key}`, bound.bytes + 1) }), 'Authorization')
    })

    it(`${protocol}: Accept-Encoding, 256 bytes and 16 codings; past either, the answer is not compressed`, async () => {
      const bound = HEADER_BOUNDS['accept-encoding']
      const large = JSON.stringify({ input: 'x'.repeat(3_000) })
      const encode = (value: string) =>
        send(t.url, {
          method: 'POST',
          path: '/v1/base64/encode',
          ca: t.tls!.cert,
          headers: {
            authorization: `Bearer ${t.key}`,
            'content-type': 'application/json',
            'accept-encoding': value,
          },
          body: large,
        })
      const coding = async (value: string) => {
        const r = await encode(value)
        expect(r.status).toBe(200)
        return r.headers['content-encoding'] ?? 'identity'
      }
      expect(await coding(padded('identity', ',br', bound.bytes))).toBe('br')
      expect(await coding(padded('identity', ',br', bound.bytes + 1))).toBe('identity')
      expect(await coding(`${list(15, 'x', ',')},gzip`)).toBe('gzip')
      expect(await coding(`${list(16, 'x', ',')},gzip`)).toBe('identity')
    })

    it(`${protocol}: Request-Id, kept up to 128 characters, replaced past them`, async () => {
      expect((await hash({ 'request-id': 'r'.repeat(128) })).headers['request-id']).toBe('r'.repeat(128))
      expect((await hash({ 'request-id': 'r'.repeat(129) })).headers['request-id']).not.toBe('r'.repeat(129))
    })
  }

  it('HTTP/2: the console Cookie, 16 KiB and 180 cookies (HTTP/1.1 refuses such headers whole)', async () => {
    const bound = HEADER_BOUNDS.cookie
    const session = (cookie: string) =>
      h2Request(t.url, { path: '/console/api/session', ca: t.tls!.cert, headers: { cookie } })
    const status = async (cookie: string) => (await session(cookie)).status
    expect(await status(padded('a=1;', 'b=2', bound.bytes))).toBe(401)
    const over = await session(padded('a=1;', 'b=2', bound.bytes + 1))
    expect(over.status).toBe(431)
    expect(over.json<Envelope>().error.details).toEqual({
      header: 'Cookie',
      max_bytes: 16_384,
      max_items: 180,
    })
    expect(await status(list(180, 'a=1', '; '))).toBe(401)
    expect(await status(list(181, 'a=1', '; '))).toBe(431)
  })

  it('HTTP/1.1: headers over 16 KiB in all are 431 ERR_HEADER_TOO_LARGE before anything runs', async () => {
    const r = await h1Request(t.url, {
      path: '/healthz',
      ca: t.tls!.cert,
      headers: { 'x-big': 'a'.repeat(17_000) },
    })
    expect(r.status).toBe(431)
    expect(r.json<Envelope>().error.code).toBe('ERR_HEADER_TOO_LARGE')
  })
})

describe('request headers read as absent past their bound', () => {
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'

  it('traceparent, 512 bytes: past it no trace is continued (W3C: a header that cannot be parsed)', () => {
    const bound = HEADER_BOUNDS.traceparent.bytes
    const at = `${traceparent}-${'a'.repeat(bound - traceparent.length - 1)}`
    expect(traceContext({ traceparent: at })).toEqual({ traceparent: at })
    expect(traceContext({ traceparent: `${at}a`, tracestate: 'k=v' })).toEqual({})
  })

  it('tracestate, 4 KiB and 32 members: past either it is discarded whole, the traceparent kept', () => {
    const members = (n: number) => Array.from({ length: n }, (_, i) => `k${i}=v`).join(',')
    expect(traceContext({ traceparent, tracestate: members(32) }).tracestate).toBe(members(32))
    expect(traceContext({ traceparent, tracestate: members(33) })).toEqual({ traceparent })
    const long = padded('k=v', ',l=w', HEADER_BOUNDS.tracestate.bytes)
    expect(traceContext({ traceparent, tracestate: long }).tracestate).toBe(long)
    expect(traceContext({ traceparent, tracestate: `${long}x` })).toEqual({ traceparent })
  })

  it('Host, 300 bytes: past it no host (the internal listener refuses it, the console calls it foreign)', () => {
    const name = `${'a'.repeat(HEADER_BOUNDS.host.bytes - 5)}:8443`
    expect(parseHost(name)).toEqual({ name: 'a'.repeat(HEADER_BOUNDS.host.bytes - 5), port: '8443' })
    expect(parseHost(`a${name}`)).toBeUndefined()
  })

  it("Referer (and Origin), 2 KiB: past it a console write's origin is foreign (403 ERR_CSRF)", () => {
    const request = (referer: string) =>
      ({ headers: { referer }, protocol: 'https', host: 'console.example:8443' }) as unknown as FastifyRequest
    const page = 'https://console.example:8443/console/'
    const at = `${page}${'p'.repeat(HEADER_BOUNDS.referer.bytes - page.length)}`
    expect(() => checkOrigin(request(at))).not.toThrow()
    expect(() => checkOrigin(request(`${at}p`))).toThrow(/Origin header missing or foreign/)
  })
})
