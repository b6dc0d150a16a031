import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CATALOG } from '../../src/ops/catalog.ts'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/harness.ts'

const SECRET = 'a-secret-of-at-least-32-bytes-long!!'
// one valid small body per route that runs an op: [op, path, body]
const CALLS: [string, string, unknown][] = [
  ['hash', '/v1/hash/sha256', { input: 'x' }],
  ['hmac', '/v1/hmac/sha256', { input: 'x', key: 'k' }],
  ['hmac.verify', '/v1/hmac/verify', { algorithm: 'sha256', input: 'x', key: 'k', digest: '00' }],
  ['jwt.sign', '/v1/jwt/sign', { payload: { sub: 'a' }, algorithm: 'HS256', secret: SECRET }],
  ['jwt.decode', '/v1/jwt/decode', { token: 'eyJhbGciOiJIUzI1NiJ9.e30.c2ln' }],
  ['jwt.inspect', '/v1/jwt/inspect', { token: 'eyJhbGciOiJIUzI1NiJ9.e30.c2ln' }],
  ['jwt.verify', '/v1/jwt/verify', { token: 'eyJhbGciOiJIUzI1NiJ9.e30.c2ln', secret: SECRET }],
  ['base64.encode', '/v1/base64/encode', { input: 'x' }],
  ['base64.decode', '/v1/base64/decode', { input: 'eA==' }],
  ['text.encode', '/v1/text/encode', { input: 'x', format: 'url' }],
  ['text.decode', '/v1/text/decode', { input: 'x', format: 'url' }],
  ['text.normalize', '/v1/text/normalize', { input: 'e\u0301', form: 'NFC' }],
  ['text.inspect', '/v1/text/inspect', { input: 'x' }],
  ['url.parse', '/v1/url/parse', { url: 'https://example.com/a?b=1' }],
  ['url.build', '/v1/url/build', { protocol: 'https', hostname: 'example.com' }],
  ['url.modify', '/v1/url/modify', { url: 'https://example.com/', set: { pathname: '/b' } }],
  ['url.query.parse', '/v1/url/query/parse', { query: 'a=1&b=2' }],
  ['url.query.build', '/v1/url/query/build', { params: { a: 1 } }],
  ['json.format', '/v1/json/format', { input: '{"a":1}' }],
  ['json.diff', '/v1/json/diff', { left: { a: 1 }, right: { a: 2 } }],
  ['json.patch', '/v1/json/patch', { document: { a: 1 }, patch: [{ op: 'remove', path: '/a' }] }],
  ['time.timestamp', '/v1/time/timestamp', { value: 0 }],
  ['id.uuid', '/v1/id/uuid', {}],
  ['id.uuid.inspect', '/v1/id/uuid/inspect', { uuid: '017f22e2-79b0-7cc3-98c4-dc0c0c07398f' }],
  ['id.nanoid', '/v1/id/nanoid', {}],
  ['cron.parse', '/v1/cron/parse', { expression: '* * * * *' }],
  ['id.ulid', '/v1/id/ulid', {}],
  ['id.ulid.inspect', '/v1/id/ulid/inspect', { ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }],
  ['compression.compress', '/v1/compress/gzip', { input: 'abc' }],
  ['compression.decompress', '/v1/decompress/gzip', { input: 'H4sIAAAAAAAAA0tMSgYAwkEkNQMAAAA=' }],
  ['otp.generate', '/v1/otp/generate', { secret: 'JBSWY3DPEHPK3PXP' }],
  ['otp.verify', '/v1/otp/verify', { secret: 'JBSWY3DPEHPK3PXP', code: '123456' }],
  ['otp.secret', '/v1/otp/secret', { account: 'alice' }],
  ['otp.uri.parse', '/v1/otp/uri/parse', { uri: 'otpauth://totp/a?secret=JBSWY3DPEHPK3PXP' }],
  ['crypto.keypair', '/v1/crypto/keypair', { type: 'x25519' }],
  [
    'crypto.convert',
    '/v1/crypto/convert',
    { key: { kty: 'OKP', crv: 'X25519', x: 'hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo' } },
  ],
  [
    'crypto.thumbprint',
    '/v1/crypto/thumbprint',
    { key: { kty: 'OKP', crv: 'X25519', x: 'hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo' } },
  ],
]

async function dispatchCounts(t: TestApp): Promise<Map<string, number>> {
  const res = await t.admin.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  })
  const counts = new Map<string, number>()
  for (const m of res.body.matchAll(/^anvil_dispatch_total\{op="([^"]+)",mode="([^"]+)"\} (\S+)$/gm)) {
    counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + Number(m[3]))
  }
  return counts
}

// Issue 14: routes get only `run`. Every op in the registry is reachable from a route, and the route
// reaches it through the dispatcher: each request below moves that op's anvil_dispatch_total by one.
describe('every registry op is reachable from a route, only through run', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t?.close())

  it('covers the registry', () => {
    expect(new Set(CALLS.map(([op]) => op))).toEqual(new Set(CATALOG.ops.map((op) => op.name)))
  })

  it.each(CALLS)('%s via POST %s', async (op, path, body) => {
    const counts = await dispatchCounts(t)
    const before = counts.get(op) ?? 0
    const total = [...counts.values()].reduce((a, b) => a + b, 0)
    const res = await t.post(path, body)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().ok).toBe(true)
    const after = await dispatchCounts(t)
    expect(after.get(op)).toBe(before + 1)
    // and nothing else was dispatched for it
    expect([...after.values()].reduce((a, b) => a + b, 0)).toBe(total + 1)
  })
})
