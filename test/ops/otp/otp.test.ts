import { describe, expect, it } from 'vitest'
import { createOtpSecret } from '../../../src/ops/otp/create.ts'
import { generateOtp } from '../../../src/ops/otp/generate.ts'
import { secretText } from '../../../src/ops/otp/secret.ts'
import type { OtpAlgorithm } from '../../../src/ops/otp/types.ts'
import { parseOtpUri } from '../../../src/ops/otp/uri.ts'
import { verifyOtp } from '../../../src/ops/otp/verify.ts'

const b32 = (ascii: string) => secretText(Buffer.from(ascii, 'latin1'))
// RFC 4226 Appendix D and RFC 6238 Appendix B's seeds (one per hash, as the reference code has them)
const SEED20 = b32('12345678901234567890')
const SEEDS: Record<OtpAlgorithm, string> = {
  SHA1: SEED20,
  SHA256: b32('12345678901234567890123456789012'),
  SHA512: b32('1234567890123456789012345678901234567890123456789012345678901234'),
}

describe('HOTP: RFC 4226 Appendix D', () => {
  const CODES = [
    '755224',
    '287082',
    '359152',
    '969429',
    '338314',
    '254676',
    '287922',
    '162583',
    '399871',
    '520489',
  ]
  it.each(CODES.map((code, counter) => [counter, code]))('counter %i → %s', (counter, code) => {
    expect(generateOtp({ type: 'hotp', secret: SEED20, counter })).toEqual({
      code,
      type: 'hotp',
      algorithm: 'SHA1',
      digits: 6,
      counter,
    })
    expect(verifyOtp({ type: 'hotp', secret: SEED20, counter, code })).toEqual({
      valid: true,
      delta: 0,
      counter,
    })
  })
})

describe('TOTP: RFC 6238 Appendix B', () => {
  const TABLE: [number, string, Record<OtpAlgorithm, string>][] = [
    [59, '0000000000000001', { SHA1: '94287082', SHA256: '46119246', SHA512: '90693936' }],
    [1111111109, '00000000023523EC', { SHA1: '07081804', SHA256: '68084774', SHA512: '25091201' }],
    [1111111111, '00000000023523ED', { SHA1: '14050471', SHA256: '67062674', SHA512: '99943326' }],
    [1234567890, '000000000273EF07', { SHA1: '89005924', SHA256: '91819424', SHA512: '93441116' }],
    [2000000000, '0000000003F940AA', { SHA1: '69279037', SHA256: '90698825', SHA512: '38618901' }],
    [20000000000, '0000000027BC86AA', { SHA1: '65353130', SHA256: '77737706', SHA512: '47863826' }],
  ]
  for (const [time, step, codes] of TABLE) {
    for (const algorithm of ['SHA1', 'SHA256', 'SHA512'] as const) {
      it(`${time} s, ${algorithm} → ${codes[algorithm]}`, () => {
        const made = generateOtp({ secret: SEEDS[algorithm], digits: 8, algorithm, at: time })
        expect(made.code).toBe(codes[algorithm])
        expect(made.counter).toBe(Number.parseInt(step, 16))
        expect(made.seconds_left).toBe(30 - (time % 30))
        // the same instant as an ISO 8601 date-time
        const iso = new Date(time * 1000).toISOString()
        expect(generateOtp({ secret: SEEDS[algorithm], digits: 8, algorithm, at: iso }).code).toBe(
          codes[algorithm],
        )
      })
    }
  }
})

describe('TOTP options', () => {
  it('a period other than 30 s, 6 digits by default, lower-case and spaced secrets', () => {
    const spaced = SEED20.toLowerCase().replace(/(.{4})/g, '$1 ')
    const made = generateOtp({ secret: spaced, period: 60, at: 119 })
    expect(made).toMatchObject({ counter: 1, period: 60, seconds_left: 1, digits: 6 })
    expect(made.code).toBe(generateOtp({ type: 'hotp', secret: SEED20, counter: 1 }).code)
  })

  it('refuses the options of the other type, and a secret that is not Base32 without naming its character', () => {
    const issue = (path: string) =>
      expect.objectContaining({
        code: 'ERR_VALIDATION',
        details: { issues: [expect.objectContaining({ path })] },
      })
    expect(() => generateOtp({ secret: SEED20, counter: 1 })).toThrowError(issue('counter'))
    expect(() => generateOtp({ type: 'hotp', secret: SEED20, counter: 1, period: 30 })).toThrowError(
      issue('period'),
    )
    expect(() => generateOtp({ type: 'hotp', secret: SEED20, counter: 1, at: 5 })).toThrowError(issue('at'))
    expect(() => generateOtp({ type: 'hotp', secret: SEED20 })).toThrowError(issue('counter'))
    let caught: Error | undefined
    try {
      generateOtp({ secret: 'JBSWY3DP1HPK3PXP' })
    } catch (err) {
      caught = err as Error
    }
    expect(caught).toMatchObject({
      code: 'ERR_INVALID_ENCODING',
      details: { field: 'secret', encoding: 'base32', position: 8 },
    })
    expect(caught!.message).not.toContain("'1'")
    expect(() => generateOtp({ secret: '====' })).toThrowError(
      expect.objectContaining({
        code: 'ERR_INVALID_ENCODING',
        details: expect.objectContaining({ field: 'secret' }),
      }),
    )
  })
})

describe('verification', () => {
  const at = 1111111111
  const codeAt = (t: number) => generateOtp({ secret: SEED20, at: t }).code

  it('TOTP: the default window of 1 takes the previous and next steps, and says which', () => {
    expect(verifyOtp({ secret: SEED20, code: codeAt(at), at })).toEqual({
      valid: true,
      delta: 0,
      counter: 37037037,
    })
    expect(verifyOtp({ secret: SEED20, code: codeAt(at - 30), at })).toMatchObject({ valid: true, delta: -1 })
    expect(verifyOtp({ secret: SEED20, code: codeAt(at + 30), at })).toMatchObject({ valid: true, delta: 1 })
    expect(verifyOtp({ secret: SEED20, code: codeAt(at + 60), at })).toEqual({
      valid: false,
      delta: null,
      counter: null,
    })
  })

  it('TOTP: window 5 (the most) takes 5 steps on each side, and not the 6th; window 0 only the step of now', () => {
    expect(verifyOtp({ secret: SEED20, code: codeAt(at - 150), at, window: 5 })).toMatchObject({ delta: -5 })
    expect(verifyOtp({ secret: SEED20, code: codeAt(at + 150), at, window: 5 })).toMatchObject({ delta: 5 })
    expect(verifyOtp({ secret: SEED20, code: codeAt(at - 180), at, window: 5 }).valid).toBe(false)
    expect(verifyOtp({ secret: SEED20, code: codeAt(at - 30), at, window: 0 }).valid).toBe(false)
  })

  it('HOTP: the window looks ahead of the counter only', () => {
    const code = (counter: number) => generateOtp({ type: 'hotp', secret: SEED20, counter }).code
    expect(verifyOtp({ type: 'hotp', secret: SEED20, counter: 3, code: code(5), window: 2 })).toEqual({
      valid: true,
      delta: 2,
      counter: 5,
    })
    expect(verifyOtp({ type: 'hotp', secret: SEED20, counter: 3, code: code(2), window: 5 }).valid).toBe(
      false,
    )
    expect(verifyOtp({ type: 'hotp', secret: SEED20, counter: 3, code: code(4) }).valid).toBe(false)
  })

  it('a code two steps share is reported at the nearer step', () => {
    // RFC 4226's seed gives 911617 for both counter 910737 and 910738 (found by search)
    expect(generateOtp({ type: 'hotp', secret: SEED20, counter: 910738 }).code).toBe('911617')
    expect(verifyOtp({ type: 'hotp', secret: SEED20, counter: 910737, code: '911617', window: 1 })).toEqual({
      valid: true,
      delta: 0,
      counter: 910737,
    })
    // as TOTP steps (30 s each): the step of now and the next one share the code
    expect(verifyOtp({ secret: SEED20, code: '911617', at: 910737 * 30 })).toMatchObject({ delta: 0 })
    expect(verifyOtp({ secret: SEED20, code: '911617', at: 910738 * 30 })).toMatchObject({ delta: 0 })
    expect(verifyOtp({ secret: SEED20, code: '911617', at: 910739 * 30 })).toMatchObject({ delta: -1 })
  })

  it('a code that is not `digits` decimal digits is refused, not just invalid', () => {
    for (const code of ['12345', '1234567', '12345a', ' 123456']) {
      expect(() => verifyOtp({ secret: SEED20, code, at })).toThrowError(
        expect.objectContaining({ code: 'ERR_VALIDATION' }),
      )
    }
  })
})

describe('otpauth:// URIs (Key Uri Format)', () => {
  it("reads the format's example, with its defaults", () => {
    expect(
      parseOtpUri('otpauth://totp/Example:alice@google.com?secret=JBSWY3DPEHPK3PXP&issuer=Example'),
    ).toEqual({
      type: 'totp',
      label: 'Example:alice@google.com',
      issuer: 'Example',
      account: 'alice@google.com',
      secret: 'JBSWY3DPEHPK3PXP',
      algorithm: 'SHA1',
      digits: 6,
      period: 30,
      warnings: [],
    })
  })

  it('a new secret: 20 random bytes by default, its URI reads back the same', () => {
    const made = createOtpSecret({ account: 'alice@example.com', issuer: 'ACME Co: Labs'.replace(':', '') })
    expect(made.secret).toMatch(/^[A-Z2-7]{32}$/)
    expect(made.uri).toBe(
      `otpauth://totp/ACME%20Co%20Labs:alice%40example.com?secret=${made.secret}&issuer=ACME%20Co%20Labs&algorithm=SHA1&digits=6&period=30`,
    )
    const { uri, ...key } = made
    expect(parseOtpUri(uri)).toEqual({ ...key, label: 'ACME Co Labs:alice@example.com', warnings: [] })
    const hotp = createOtpSecret({
      type: 'hotp',
      account: 'bob',
      bytes: 64,
      counter: 7,
      digits: 8,
      algorithm: 'SHA512',
    })
    expect(hotp.secret).toHaveLength(103)
    expect(hotp.uri).toBe(`otpauth://hotp/bob?secret=${hotp.secret}&algorithm=SHA512&digits=8&counter=7`)
    expect(parseOtpUri(hotp.uri)).toMatchObject({ type: 'hotp', counter: 7, digits: 8, algorithm: 'SHA512' })
  })

  it('refuses a colon in the account or issuer of a new secret', () => {
    expect(() => createOtpSecret({ account: 'a:b' })).toThrowError(
      expect.objectContaining({ code: 'ERR_VALIDATION' }),
    )
    expect(() => createOtpSecret({ account: 'a', issuer: 'x:y' })).toThrowError(
      expect.objectContaining({ code: 'ERR_VALIDATION' }),
    )
  })

  it('warns where the format only advises: a differing issuer, unknown parameters; a percent-encoded colon', () => {
    const parsed = parseOtpUri(
      'otpauth://TOTP/Big%20Corp%3A%20john.doe%40email.com?secret=jbswy3dpehpk3pxp&issuer=Other&image=x&algorithm=sha256',
    )
    expect(parsed).toMatchObject({ issuer: 'Other', account: 'john.doe@email.com', algorithm: 'SHA256' })
    expect(parsed.secret).toBe('JBSWY3DPEHPK3PXP')
    expect(parsed.warnings).toEqual([
      'unknown parameter "image" ignored',
      `the issuer parameter "Other" differs from the label's issuer "Big Corp"; the parameter is used`,
    ])
  })

  it('refuses what the format requires, with where', () => {
    const refused = (uri: string, part: string, position: number, parameter?: string) => {
      let caught: unknown
      try {
        parseOtpUri(uri)
      } catch (err) {
        caught = err
      }
      expect(caught).toMatchObject({ code: 'ERR_INVALID_OTP_URI', details: { part, position } })
      if (parameter) expect(caught).toMatchObject({ details: { parameter } })
    }
    refused('https://totp/a?secret=AA', 'scheme', 0)
    refused('otpauth://motp/a?secret=AA', 'type', 10)
    refused('otpauth://totp/a?issuer=x', 'parameter', 25, 'secret')
    refused('otpauth://totp/a?secret=A1', 'parameter', 17, 'secret')
    refused('otpauth://totp/a?secret=AA&digits=9', 'parameter', 27, 'digits')
    refused('otpauth://totp/a?secret=AA&period=0', 'parameter', 27, 'period')
    refused('otpauth://totp/a?secret=AA&algorithm=MD5', 'parameter', 27, 'algorithm')
    refused('otpauth://totp/a?secret=AA&secret=BB', 'parameter', 27, 'secret')
    refused('otpauth://hotp/a?secret=AA', 'parameter', 26, 'counter')
    refused('otpauth://totp/%E0%A4?secret=AA', 'label', 15)
    refused('otpauth://totp/x:a:b?secret=AA', 'label', 15)
    refused('otpauth://totp/Issuer:?secret=AA', 'label', 15)
  })
})
