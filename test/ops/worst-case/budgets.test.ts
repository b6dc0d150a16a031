import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { MAX_RSA_BITS, publicKey } from '../../../src/ops/jwt/keys.ts'
import { MAX_NON_STARTER_RUN, nonStarterRun, normalizeText } from '../../../src/ops/text/normalize.ts'

describe('op budgets', () => {
  it('normalize: measures runs of marks in code points and refuses past 1,024, never altering the text', () => {
    expect(nonStarterRun('abc')).toBe(0)
    expect(nonStarterRun(`e${'\u0301'.repeat(5)}x${'\u0301'.repeat(7)}`)).toBe(7)
    // astral marks (U+1D165..) count once each
    expect(nonStarterRun(`a${'\u{1D167}'.repeat(40)}`)).toBe(40)
    const at = `a${'\u0301'.repeat(MAX_NON_STARTER_RUN)}`
    expect(normalizeText({ input: at, form: 'NFD' }).output).toBe(at.normalize('NFD'))
    expect(() => normalizeText({ input: `${at}\u0301` })).toThrowError(
      expect.objectContaining({
        code: 'ERR_COMPUTE_LIMIT',
        details: { reason: 'non_starter_run', limit: MAX_NON_STARTER_RUN },
      }),
    )
  })

  it('jwt keys: RSA exponents past 2^32 are refused as key material, naming the field', () => {
    const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' })
    expect(publicKey({ ...jwk }).kind).toBe('rsa')
    // 2^32 + 1 is allowed, the next odd number past 2^32 + 1 with a byte more is not
    const e = (n: bigint) => Buffer.from(n.toString(16).padStart(12, '0'), 'hex').toString('base64url')
    expect(publicKey({ ...jwk, e: e(2n ** 32n - 1n) }).kind).toBe('rsa')
    expect(() => publicKey({ ...jwk, e: e(2n ** 40n + 1n) }, 'jwks.keys.3')).toThrowError(
      expect.objectContaining({
        code: 'ERR_INVALID_KEY_MATERIAL',
        details: expect.objectContaining({ field: 'jwks.keys.3' }),
      }),
    )
    expect(MAX_RSA_BITS).toBe(16384)
  })
})
