import { randomBytes, randomInt } from 'node:crypto'
import { expect, it } from 'vitest'
import { createOtpSecret } from '../../../src/ops/otp/create.ts'
import { generateOtp } from '../../../src/ops/otp/generate.ts'
import { secretText } from '../../../src/ops/otp/secret.ts'
import { OTP_ALGORITHMS } from '../../../src/ops/otp/types.ts'
import { parseOtpUri } from '../../../src/ops/otp/uri.ts'
import { describePython, runPython } from '../../helpers/python-oracle.ts'

// The otp family against pyotp: codes for random secrets, counters, times, digits, periods and hashes,
// and otpauth:// URIs both ways (ours read by pyotp.parse_uri, pyotp's provisioning URIs read here).
const CODES = `
import hashlib, json, sys, pyotp
out = []
for c in json.load(sys.stdin):
    digest = getattr(hashlib, c['algorithm'].lower())
    if c['type'] == 'hotp':
        out.append(pyotp.HOTP(c['secret'], digits=c['digits'], digest=digest).at(c['counter']))
    else:
        out.append(pyotp.TOTP(c['secret'], digits=c['digits'], digest=digest, interval=c['period']).at(c['at']))
print(json.dumps(out))
`
const URIS = `
import json, sys, pyotp
cases = json.load(sys.stdin)
parsed = []
for uri in cases['ours']:
    o = pyotp.parse_uri(uri)
    parsed.append({'secret': o.secret, 'digits': o.digits, 'name': o.name, 'issuer': o.issuer,
                   'digest': o.digest().name, 'period': getattr(o, 'interval', None),
                   'counter': getattr(o, 'initial_count', None)})
made = [pyotp.TOTP(k['secret'], digits=k['digits']).provisioning_uri(name=k['account'], issuer_name=k['issuer'])
        for k in cases['theirs']]
print(json.dumps({'parsed': parsed, 'made': made}))
`

describePython('otp against pyotp', ['pyotp'], () => {
  it('makes the codes pyotp makes', () => {
    const cases = Array.from({ length: 400 }, (_, i) => {
      const algorithm = OTP_ALGORITHMS[i % 3]!
      const common = {
        secret: secretText(randomBytes(10 + (i % 55))),
        digits: 6 + (i % 3),
        algorithm,
      }
      return i % 2 === 0
        ? { ...common, type: 'hotp' as const, counter: i < 10 ? i : randomInt(2 ** 47) }
        : { ...common, type: 'totp' as const, period: [30, 60, 15, 1][i % 4]!, at: randomInt(2 ** 37) }
    })
    const theirs = runPython<string[]>(CODES, cases)
    cases.forEach((c, i) => {
      const ours =
        c.type === 'hotp'
          ? generateOtp({ ...c, type: 'hotp' })
          : generateOtp({ ...c, type: 'totp', period: c.period, at: c.at })
      expect(ours.code, JSON.stringify(c)).toBe(theirs[i])
    })
  })

  it('pyotp reads the URIs made here, and the URIs pyotp makes are read here', () => {
    const ours = Array.from({ length: 30 }, (_, i) =>
      createOtpSecret({
        type: i % 3 === 0 ? 'hotp' : 'totp',
        account: `user ${i}+tag@example.com`,
        // (pyotp 2.6 percent-decodes the whole URI before splitting it, so an issuer with "&" or "#" is
        // beyond it: the encoding here is RFC 3986's, which the Key Uri Format asks for)
        ...(i % 2 === 0 ? { issuer: `ACME Sons (${i})` } : {}),
        digits: 6 + (i % 3),
        algorithm: OTP_ALGORITHMS[i % 3]!,
        ...(i % 3 === 0 ? { counter: i } : { period: 30 + i }),
      }),
    )
    const theirs = Array.from({ length: 30 }, (_, i) => ({
      secret: secretText(randomBytes(20)),
      account: `Jöhn Doe ${i}@example.com`,
      issuer: `Big Corp ${i} & Co #1`,
      digits: 6 + (i % 3),
    }))
    const result = runPython<{
      parsed: {
        secret: string
        digits: number
        name: string
        issuer: string | null
        digest: string
        period: number | null
        counter: number | null
      }[]
      made: string[]
    }>(URIS, { ours: ours.map((o) => o.uri), theirs })
    ours.forEach((o, i) => {
      const p = result.parsed[i]!
      expect(p.secret).toBe(o.secret)
      expect(p.digits).toBe(o.digits)
      expect(p.name).toBe(o.account)
      expect(p.issuer).toBe(o.issuer ?? null)
      expect(p.digest).toBe(o.algorithm.toLowerCase())
      if (o.type === 'totp') expect(p.period).toBe(o.period)
      else expect(p.counter).toBe(o.counter)
    })
    theirs.forEach((k, i) => {
      expect(parseOtpUri(result.made[i]!)).toMatchObject({
        type: 'totp',
        secret: k.secret,
        account: k.account,
        issuer: k.issuer,
        digits: k.digits,
        warnings: [],
      })
    })
  })
})
