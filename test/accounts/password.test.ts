import { scryptSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { hashPassword, verifyPassword } from '../../src/accounts/password.ts'

describe('console passwords (scrypt)', () => {
  it('stores a PHC string with its parameters, a 16-byte salt and a 32-byte hash', async () => {
    const stored = await hashPassword('correct horse battery staple')
    const m = /^\$scrypt\$ln=15,r=8,p=1\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(stored)
    expect(m).not.toBeNull()
    expect(Buffer.from(m![1]!, 'base64')).toHaveLength(16)
    expect(Buffer.from(m![2]!, 'base64')).toHaveLength(32)
    expect(stored).not.toContain('correct horse')
    // it is really scrypt(N=2^15, r=8, p=1) of the password with that salt
    const again = scryptSync('correct horse battery staple', Buffer.from(m![1]!, 'base64'), 32, {
      N: 2 ** 15,
      r: 8,
      p: 1,
      maxmem: 64 * 1024 * 1024,
    })
    expect(again.toString('base64').replace(/=+$/, '')).toBe(m![2])
  })

  it('verifies the right password only, and salts every hash differently', async () => {
    const a = await hashPassword('correct horse battery staple')
    const b = await hashPassword('correct horse battery staple')
    expect(a).not.toBe(b)
    expect(await verifyPassword('correct horse battery staple', a)).toBe(true)
    expect(await verifyPassword('correct horse battery stapl', a)).toBe(false)
    expect(await verifyPassword('Correct horse battery staple', a)).toBe(false)
  })

  it('compares passwords after NFKC normalization (the same password typed on another keyboard)', async () => {
    const composed = await hashPassword('pässwörd-long-enough')
    expect(await verifyPassword('pa\u0308sswo\u0308rd-long-enough', composed)).toBe(true)
  })

  it('never matches a malformed or out-of-bounds stored hash (no huge scrypt from a tampered record)', async () => {
    const good = await hashPassword('correct horse battery staple')
    for (const bad of [
      '',
      'plain',
      good.replace('ln=15', 'ln=30'),
      good.replace('r=8', 'r=64'),
      good.replace('p=1', 'p=9'),
      good.replace(/\$[^$]+$/, '$AAAA'),
      good.replace('$scrypt$', '$argon2id$'),
    ]) {
      expect(await verifyPassword('correct horse battery staple', bad)).toBe(false)
    }
  })
})
