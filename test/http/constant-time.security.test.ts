import * as crypto from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'

// Every place a secret or a digest of one is compared goes through crypto.timingSafeEqual: HMAC verify (the
// caller's digest against the one computed), the admin token (digests of equal length), the console's CSRF
// token and passwords (scrypt hashes). Asserted by watching timingSafeEqual itself, with the very bytes it
// compares: an `===`, `Buffer.equals` or `Buffer.compare` in its place fails here (issue 36: HMAC verify
// with `===` passed every test). Not secrets, compared plainly: an API key's checksum (public, CRC32 of the
// key's head, checked before any look-up) and an Idempotency-Key's request fingerprint (the client's own
// request); keys and sessions are found by their hash, never compared; a JWT's HMAC is verified by WebCrypto
// (subtle.verify, through jose), in OpenSSL.
vi.mock('node:crypto', async (original) => {
  const actual = await original<typeof import('node:crypto')>()
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) }
})

const { verifyHmac, hmac } = await import('../../src/ops/hmac/hmac.ts')
const { checkCsrfToken } = await import('../../src/http/console/csrf.ts')
const { hashPassword, verifyPassword } = await import('../../src/accounts/password.ts')
const { ADMIN_TOKEN, startTestApp } = await import('../helpers/harness.ts')
const compared = vi.mocked(crypto.timingSafeEqual)

describe('secrets and digests are compared in constant time', () => {
  beforeEach(() => {
    compared.mockClear()
  })

  it('HMAC verify: the given digest against the computed one', () => {
    const params = { algorithm: 'sha256', key: 'k', input: 'message' }
    const right = hmac(params).digest
    const wrong = `${right.slice(0, -1)}${right.endsWith('0') ? '1' : '0'}`
    expect(verifyHmac({ ...params, digest: wrong })).toEqual({ valid: false })
    expect(verifyHmac({ ...params, digest: right })).toEqual({ valid: true })
    expect(
      compared.mock.calls.map(([a, b]) => [
        Buffer.from(a as Uint8Array).toString('hex'),
        Buffer.from(b as Uint8Array).toString('hex'),
      ]),
    ).toEqual([
      [wrong, right],
      [right, right],
    ])
  })

  it("the console's CSRF token", () => {
    const expected = 'c'.repeat(43)
    const request = (sent: string) => ({ headers: { 'x-csrf-token': sent } }) as unknown as FastifyRequest
    expect(() => checkCsrfToken(request(`${'c'.repeat(42)}d`), expected)).toThrow(
      /X-CSRF-Token header is wrong/,
    )
    expect(() => checkCsrfToken(request(expected), expected)).not.toThrow()
    expect(compared).toHaveBeenCalledTimes(2)
    expect(String(compared.mock.calls[1]![0])).toBe(expected)
  })

  it('a password against its stored scrypt hash', async () => {
    const stored = await hashPassword('correct horse battery staple')
    expect(await verifyPassword('wrong horse battery staple', stored)).toBe(false)
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true)
    expect(compared).toHaveBeenCalledTimes(2)
  })

  describe('the admin token', () => {
    let t: Awaited<ReturnType<typeof startTestApp>>
    beforeAll(async () => {
      t = await startTestApp()
    })
    afterAll(() => t?.close())

    it("as SHA-256 digests of equal length, the sent token's and ADMIN_TOKEN's", async () => {
      const ask = (token: string) =>
        t.admin.inject({
          method: 'GET',
          url: '/admin/workspaces',
          headers: { authorization: `Bearer ${token}` },
        })
      compared.mockClear()
      expect((await ask('not-the-admin-token')).statusCode).toBe(401)
      expect((await ask(ADMIN_TOKEN)).statusCode).toBe(200)
      const digest = (s: string) => crypto.createHash('sha256').update(s).digest('hex')
      expect(
        compared.mock.calls.map(([a, b]) => [
          Buffer.from(a as Uint8Array).toString('hex'),
          Buffer.from(b as Uint8Array).toString('hex'),
        ]),
      ).toEqual([
        [digest('not-the-admin-token'), digest(ADMIN_TOKEN)],
        [digest(ADMIN_TOKEN), digest(ADMIN_TOKEN)],
      ])
    })
  })
})
