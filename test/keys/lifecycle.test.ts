import { afterEach, describe, expect, it } from 'vitest'
import { generateKey } from '../../src/keys/format.ts'
import { MemoryStore } from '../../src/store/memory/memory-store.ts'
import { countingStore } from '../helpers/counting-store.ts'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/harness.ts'

const T0 = Date.UTC(2026, 10, 10, 12, 0, 0)

describe('API key verification and lifecycle', () => {
  let t: TestApp
  let now = T0
  afterEach(() => t?.close())

  async function start() {
    now = T0
    const counted = countingStore(await MemoryStore.open({ dataDir: null, clock: () => now }))
    t = await startTestApp({ overrides: { store: counted.store, clock: () => now } })
    return counted.calls
  }

  const call = (key: string | undefined, ip?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/hash/sha256',
      headers: {
        'content-type': 'application/json',
        ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      },
      payload: '{"input":"x"}',
      ...(ip ? { remoteAddress: ip } : {}),
    })

  const admin = (method: 'POST' | 'GET' | 'PATCH', url: string, body?: unknown) =>
    t.admin.inject({
      method,
      url,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    })

  it('a malformed or mistyped key is refused without touching the store', async () => {
    const calls = await start()
    const good = t.key
    const typo = good.slice(0, 20) + (good[20] === 'a' ? 'b' : 'a') + good.slice(21)
    for (const bad of ['nope', typo, good.slice(0, -1), generateKey('live').toUpperCase()]) {
      const res = await call(bad)
      expect(res.statusCode).toBe(401)
      expect(res.json().error.code).toBe('ERR_INVALID_API_KEY')
    }
    expect(calls.get('lookupKey') ?? 0).toBe(0)
    const missing = await call(undefined)
    expect(missing.json().error.code).toBe('ERR_MISSING_API_KEY')
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="anvil"')
    expect(calls.get('lookupKey') ?? 0).toBe(0)
    // a well-formed unknown key does reach the store, and gets the same answer as a malformed one
    const unknown = await call(generateKey('live'))
    expect(unknown.json().error.code).toBe('ERR_INVALID_API_KEY')
    expect(calls.get('lookupKey')).toBe(1)
  })

  it('caches verified keys in-process', async () => {
    const calls = await start()
    for (let i = 0; i < 5; i++) expect((await call(t.key)).statusCode).toBe(200)
    expect(calls.get('lookupKey')).toBe(1)
  })

  it('expiry: valid until expires_at, refused after', async () => {
    await start()
    const k = await t.newKey({ expires_at: new Date(T0 + 60_000).toISOString() })
    expect((await call(k.key)).statusCode).toBe(200)
    now = T0 + 60_000
    const res = await call(k.key)
    expect(res.statusCode).toBe(401)
    expect(res.json().error.code).toBe('ERR_INVALID_API_KEY')
  })

  it('revocation takes effect on the next request, even when the key is cached', async () => {
    await start()
    const created = await admin('POST', '/admin/keys', { workspace_id: t.workspaceId, name: 'ci' })
    expect(created.statusCode).toBe(200)
    const { id, key } = created.json().data
    expect((await call(key)).statusCode).toBe(200)
    const revoked = await admin('POST', `/admin/keys/${id}/revoke`)
    expect(revoked.statusCode).toBe(200)
    expect(revoked.json().data.revoked_at).toBe(new Date(T0).toISOString())
    expect((await call(key)).statusCode).toBe(401)
  })

  it('rotation: new key works at once, old key lives for the grace period', async () => {
    await start()
    const created = (await admin('POST', '/admin/keys', { workspace_id: t.workspaceId })).json().data
    const rotated = await admin('POST', `/admin/keys/${created.id}/rotate`, { grace_seconds: 3600 })
    expect(rotated.statusCode).toBe(200)
    const fresh = rotated.json().data
    expect(fresh.key).not.toBe(created.key)
    expect(fresh.replaces).toMatchObject({ id: created.id, rotated_to: fresh.id })
    expect(fresh.replaces).not.toHaveProperty('hash')
    expect((await call(fresh.key)).statusCode).toBe(200)
    now = T0 + 3599_000
    expect((await call(created.key)).statusCode).toBe(200)
    now = T0 + 3600_000
    expect((await call(created.key)).statusCode).toBe(401)
    expect((await call(fresh.key)).statusCode).toBe(200)
  })

  it('rotation with grace 0 revokes the old key now; default grace is 24 h', async () => {
    await start()
    const a = (await admin('POST', '/admin/keys', { workspace_id: t.workspaceId })).json().data
    const b = (await admin('POST', '/admin/keys', { workspace_id: t.workspaceId })).json().data
    await admin('POST', `/admin/keys/${a.id}/rotate`, { grace_seconds: 0 })
    expect((await call(a.key)).statusCode).toBe(401)
    const rb = (await admin('POST', `/admin/keys/${b.id}/rotate`)).json().data
    expect(rb.replaces.expires_at).toBe(new Date(T0 + 86_400_000).toISOString())
  })

  it('scopes: families and CIDR allowlist give 403 ERR_KEY_SCOPE', async () => {
    await start()
    const onlyJwt = await t.newKey({ families: ['jwt'] })
    const res = await call(onlyJwt.key)
    expect(res.statusCode).toBe(403)
    expect(res.json().error).toMatchObject({ code: 'ERR_KEY_SCOPE', type: 'permission_error' })
    const hashOk = await t.newKey({ families: ['hash'] })
    expect((await call(hashOk.key)).statusCode).toBe(200)

    const cidr = await t.newKey({ allowed_cidrs: ['10.1.0.0/16', '2001:db8::/32'] })
    expect((await call(cidr.key, '10.1.2.3')).statusCode).toBe(200)
    expect((await call(cidr.key, '::ffff:10.1.2.3')).statusCode).toBe(200)
    expect((await call(cidr.key, '2001:db8::1')).statusCode).toBe(200)
    expect((await call(cidr.key, '10.2.0.1')).statusCode).toBe(403)
    expect((await call(cidr.key, '127.0.0.1')).statusCode).toBe(403)
  })

  // which restriction refused is said plainly: an address outside the allowlist is not "the family"
  it('a scope refusal names its reason: the family, or the source address', async () => {
    await start()
    const onlyJwt = await t.newKey({ families: ['jwt', 'url'] })
    expect((await call(onlyJwt.key)).json().error).toMatchObject({
      message: 'This key may not call the hash family; it may call jwt, url.',
      details: { family: 'hash', reason: 'family', allowed_families: ['jwt', 'url'] },
    })
    const cidr = await t.newKey({ families: ['hash'], allowed_cidrs: ['10.1.0.0/16'] })
    const refused = (await call(cidr.key, '10.2.0.1')).json().error
    expect(refused).toMatchObject({
      message:
        "This key may not be used from 10.2.0.1: that address is outside the key's allowed source addresses.",
      details: { family: 'hash', reason: 'address', address: '10.2.0.1' },
    })
    expect(refused.message).not.toMatch(/family/)
  })

  it('test-mode environments get anvil_test_ keys; environment mode conflicts are refused', async () => {
    await start()
    const staging = await admin('POST', '/admin/keys', {
      workspace_id: t.workspaceId,
      environment: 'staging',
    })
    expect(staging.json().data.key).toMatch(/^anvil_test_/)
    expect((await call(staging.json().data.key)).statusCode).toBe(200)
    const clash = await admin('POST', '/admin/keys', {
      workspace_id: t.workspaceId,
      environment: 'staging',
      mode: 'live',
    })
    expect(clash.statusCode).toBe(400)
    expect(clash.json().error.code).toBe('ERR_VALIDATION')
  })
})
