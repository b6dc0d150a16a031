import { describe, expect, it } from 'vitest'
import type { AppError } from '../../../src/errors.ts'
import { capsOf } from '../../../src/ops/password/caps.ts'
import { passwordHashBody, passwordVerifyBody } from '../../../src/ops/password/schema.ts'
import { appError, hash, verify } from '../../helpers/password.ts'

// A password never reaches an error (its message or details), and neither does a stored hash: errors
// are logged, and an access log is no place for either. Every way the family refuses is swept here with
// a password and a hash that are easy to find. (Logs, traces, idempotency records and metric labels are
// checked through the gateway, in test/http/v1/password.test.ts.)
const SECRET = 'Sw0rdf1sh-ünïcode-🔑'
const forms = (s: string) => [s, Buffer.from(s).toString('hex'), Buffer.from(s).toString('base64')]
const STORED = hash({ password: SECRET, params: { memory_kib: 64, iterations: 1 } }).hash
const [, , , , SALT, TAG] = STORED.split('$') as string[]

function leaks(err: AppError): string[] {
  const text = JSON.stringify({ message: err.message, details: err.details })
  return [...forms(SECRET), 'Sw0rdf1sh', STORED, SALT!, TAG!].filter((s) => text.includes(s))
}

describe('errors carry neither the password nor the hash', () => {
  const free = capsOf('free')
  const refusals: [string, () => unknown][] = [
    ['too long', () => hash({ password: `${SECRET}${'x'.repeat(5000)}` })],
    ['too long for bcrypt', () => hash({ password: SECRET.repeat(4), algorithm: 'bcrypt' })],
    [
      'too long for bcrypt, verifying',
      () => verify(SECRET.repeat(4), '$2b$04$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e'),
    ],
    ['a NUL for bcrypt', () => hash({ password: `${SECRET}\u0000`, algorithm: 'bcrypt' })],
    ['a lone surrogate', () => hash({ password: `${SECRET}\ud800` })],
    ['not hex', () => hash({ password: SECRET, password_encoding: 'hex' })],
    ['not base64', () => hash({ password: SECRET, password_encoding: 'base64' })],
    ['over a cap, hashing', () => hash({ password: SECRET, params: { memory_kib: 1 << 30 } }, free)],
    ['over a cap, verifying', () => verify(SECRET, STORED.replace('m=64', 'm=1073741824'), free)],
    ['a malformed hash', () => verify(SECRET, STORED.slice(0, -2))],
    ['a malformed salt', () => verify(SECRET, STORED.replace(SALT!, `${SALT}=`))],
    ['an unsupported hash', () => verify(SECRET, STORED.replace('$v=19', '$v=16'))],
    ['an unknown scheme', () => verify(SECRET, `$sha512crypt$${SALT}$${TAG}`)],
  ]
  for (const [what, refuse] of refusals) {
    it(what, () => {
      expect(leaks(appError(refuse))).toEqual([])
    })
  }

  it('nor do schema refusals', () => {
    const bodies = [
      { password: SECRET, algorithm: 'argon3' },
      { password: SECRET, params: { cost: 12 } },
      { password: SECRET, params: { memory_kib: 'lots' } },
      { password: SECRET, pasword: SECRET },
    ]
    for (const body of bodies) {
      const issues = JSON.stringify(passwordHashBody.safeParse(body).error?.issues.map((i) => i.message))
      expect(forms(SECRET).filter((s) => issues.includes(s))).toEqual([])
    }
    const long = JSON.stringify(
      passwordVerifyBody.safeParse({ password: SECRET, hash: STORED.repeat(200) }).error,
    )
    expect(long.includes(STORED)).toBe(false)
  })
})
