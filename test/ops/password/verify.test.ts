import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isAppError } from '../../../src/errors.ts'
import { argon2Derive, formatArgon2 } from '../../../src/ops/password/argon2.ts'
import { ab64Encode, b64Encode } from '../../../src/ops/password/b64.ts'
import { capsOf } from '../../../src/ops/password/caps.ts'
import { parsePhc } from '../../../src/ops/password/phc.ts'
import { ARGON2ID_OPTIONS, needsRehash } from '../../../src/ops/password/policy.ts'
import { parseScrypt } from '../../../src/ops/password/scrypt.ts'
import type { PasswordCaps } from '../../../src/ops/password/types.ts'
import { verifyMemoryBytes } from '../../../src/ops/password/verify.ts'
import { appError, hash, NO_CAPS, verify } from '../../helpers/password.ts'

const PASSWORD = 'correct horse battery staple'
// one cheap, valid argon2id hash of PASSWORD, and variants of it with other parameter text, salt or version
const SALT_BYTES = Buffer.from('0123456789abcdef')
const SALT = b64Encode(SALT_BYTES)
const CHEAP = { memory_kib: 64, iterations: 1, parallelism: 1 }
const VALID = formatArgon2(
  'argon2id',
  CHEAP,
  SALT_BYTES,
  argon2Derive({
    variant: 'argon2id',
    password: Buffer.from(PASSWORD),
    salt: SALT_BYTES,
    params: CHEAP,
    tagLength: 32,
  }),
)
const argon2 = (params: string, salt = SALT, version = '$v=19') =>
  VALID.replace(/\$v=19\$m=64,t=1,p=1\$[^$]+/, `${version}$${params}$${salt}`)

describe('needs_rehash', () => {
  const strong = { algorithm: 'argon2id' as const, saltBytes: 16, hashBytes: 32 }
  it("is false for argon2id at any of OWASP's options, and true one KiB or one pass below each", () => {
    for (const [memory_kib, iterations] of ARGON2ID_OPTIONS) {
      expect(needsRehash({ ...strong, params: { memory_kib, iterations, parallelism: 1 } })).toBe(false)
      expect(
        needsRehash({ ...strong, params: { memory_kib: memory_kib - 1, iterations, parallelism: 1 } }),
      ).toBe(true)
      expect(
        needsRehash({
          ...strong,
          params: { memory_kib: 7_167, iterations: iterations + 10, parallelism: 1 },
        }),
      ).toBe(true)
    }
    expect(needsRehash({ ...strong, params: { memory_kib: 47_104, iterations: 0, parallelism: 1 } })).toBe(
      true,
    )
  })

  it('is true for a salt under 16 bytes or a hash under 32, and for every other algorithm however strong', () => {
    const params = { memory_kib: 1_048_576, iterations: 10, parallelism: 4 }
    expect(needsRehash({ ...strong, params })).toBe(false)
    expect(needsRehash({ ...strong, params, saltBytes: 15 })).toBe(true)
    expect(needsRehash({ ...strong, params, hashBytes: 31 })).toBe(true)
    for (const algorithm of ['argon2i', 'argon2d'] as const)
      expect(needsRehash({ ...strong, algorithm, params })).toBe(true)
    expect(
      needsRehash({ ...strong, algorithm: 'scrypt', params: { log2_n: 20, block_size: 8, parallelism: 1 } }),
    ).toBe(true)
    expect(needsRehash({ ...strong, algorithm: 'bcrypt', params: { cost: 14 } })).toBe(true)
  })

  it('is what verify answers', () => {
    expect(verify(PASSWORD, hash({ password: PASSWORD }).hash).needs_rehash).toBe(false)
    const weak = hash({ password: PASSWORD, params: { memory_kib: 7_168, iterations: 4 } }).hash
    expect(verify(PASSWORD, weak)).toMatchObject({ valid: true, needs_rehash: true })
    expect(verify('wrong', weak)).toMatchObject({ valid: false, needs_rehash: true })
  })
})

describe('hashes made elsewhere', () => {
  it("reads passlib's PBKDF2 (bare rounds, ab64) and the PHC form (i=, B64; RustCrypto's l=) as the same hash", () => {
    // the quirk's example in docs/decisions.md and src/ops/password/pbkdf2.ts (passlib's own test vector):
    // passlib writes "." where B64 has "+"
    const passlib = '$pbkdf2-sha256$1212$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg.fJPeq1h/gXXY7acBp9/6c.tmQ'
    const phc = '$pbkdf2-sha256$i=1212$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg+fJPeq1h/gXXY7acBp9/6c+tmQ'
    const PASSWORD = 'password'
    for (const stored of [passlib, phc, phc.replace('i=1212', 'i=1212,l=32')]) {
      expect(verify(PASSWORD, stored)).toEqual({
        valid: true,
        algorithm: 'pbkdf2-sha256',
        params: { iterations: 1212 },
        needs_rehash: true,
      })
    }
    expect(appError(() => verify(PASSWORD, phc.replace('i=1212', 'i=1212,l=31'))).details).toMatchObject({
      field: 'l',
    })
  })

  it('compares tags of any length 4 to 64 bytes, and salts of 8 to 64, whole', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 4, max: 64 }),
        fc.integer({ min: 8, max: 64 }),
        (tagLength, saltLength) => {
          const salt = Buffer.alloc(saltLength, 7)
          const params = { memory_kib: 32, iterations: 1, parallelism: 1 }
          const tag = argon2Derive({
            variant: 'argon2id',
            password: Buffer.from(PASSWORD),
            salt,
            params,
            tagLength,
          })
          const stored = formatArgon2('argon2id', params, salt, tag)
          expect(verify(PASSWORD, stored).valid).toBe(true)
          expect(verify(`${PASSWORD}!`, stored).valid).toBe(false)
        },
      ),
      { numRuns: 25 },
    )
  })
})

describe('a malformed hash is 400 ERR_INVALID_HASH, never a crash', () => {
  const bcrypt = hash({ password: PASSWORD, algorithm: 'bcrypt', params: { cost: 4 } }).hash
  const scrypt = (params: string) => `$scrypt$${params}$${SALT}$${'A'.repeat(43)}`
  const cases: [string, string, string?][] = [
    ['empty', ''],
    ['no leading $', 'argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHQ$AAAA'],
    ['a lone $', '$'],
    ['the identifier alone', '$argon2id'],
    ['no hash output', argon2('m=64,t=1,p=1').replace(/\$[^$]+$/, ''), 'hash'],
    ['padding', `${argon2('m=64,t=1,p=1')}=`, 'hash'],
    ['a non-canonical last character', argon2('m=64,t=1,p=1').replace(/.$/, 'B'), 'hash'],
    ['base64url characters', argon2('m=64,t=1,p=1', SALT.replace(/.$/, '-')), 'salt'],
    ['a salt of 7 bytes', argon2('m=64,t=1,p=1', b64Encode(Buffer.alloc(7))), 'salt'],
    ['a hash of 3 bytes', argon2('m=64,t=1,p=1').replace(/\$[^$]+$/, '$AAAA'), 'hash'],
    ['a leading zero', argon2('m=064,t=1,p=1'), 'm'],
    ['m past 2^32-1', argon2('m=4294967296,t=1,p=1'), 'm'],
    ['t=0', argon2('m=64,t=0,p=1'), 't'],
    ['p=0', argon2('m=64,t=1,p=0'), 'p'],
    ['m under 8·p', argon2('m=64,t=1,p=9'), 'm'],
    ['parameters out of order', argon2('t=1,m=64,p=1'), 'params'],
    ['a missing parameter', argon2('m=64,t=1'), 'params'],
    ['an unknown parameter', argon2('m=64,t=1,p=1,x=2'), 'params'],
    ['version 20', argon2('m=64,t=1,p=1', SALT, '$v=20'), 'v'],
    ['an extra field', `${argon2('m=64,t=1,p=1')}$AAAA`],
    ['whitespace', ` ${argon2('m=64,t=1,p=1')}`],
    ['a sign', argon2('m=+64,t=1,p=1'), 'm'],
    ['scrypt ln=0', scrypt('ln=0,r=8,p=1'), 'ln'],
    ['scrypt N ≥ 2^(16·r)', scrypt('ln=16,r=1,p=1'), 'params'],
    ['scrypt r·p ≥ 2^30', scrypt('ln=10,r=1073741823,p=2'), 'params'],
    // OpenSSL computes r·p of at most 2^24 - 1 (128·r·p bytes in one buffer): past it, never a 500
    ['scrypt r·p of 2^24, past what OpenSSL computes', scrypt('ln=10,r=4096,p=4096'), 'params'],
    ['scrypt without p', scrypt('ln=10,r=8'), 'params'],
    ['scrypt with a version', scrypt('ln=10,r=8,p=1').replace('$scrypt$', '$scrypt$v=1$'), 'v'],
    ['pbkdf2 i=0', `$pbkdf2-sha256$i=0$${SALT}$${'A'.repeat(43)}`, 'i'],
    ['pbkdf2 without i', `$pbkdf2-sha256$l=32$${SALT}$${'A'.repeat(43)}`, 'params'],
    ['passlib rounds with a leading zero', `$pbkdf2-sha256$01212$${SALT}$${'A'.repeat(43)}`, 'rounds'],
    ['passlib with an extra field', `$pbkdf2-sha256$1212$${SALT}$${'A'.repeat(43)}$`],
    ['bcrypt cost 03', bcrypt.replace('$04$', '$03$'), 'cost'],
    ['bcrypt cost 32', bcrypt.replace('$04$', '$32$'), 'cost'],
    ['bcrypt one character short', bcrypt.slice(0, -1)],
    ['bcrypt with a character outside its alphabet', `${bcrypt.slice(0, -1)}+`],
    ['bcrypt cost of one digit', bcrypt.replace('$04$', '$4$')],
    ['bcrypt salt not canonical', `${bcrypt.slice(0, 28)}C${bcrypt.slice(29)}`, 'salt'],
  ]
  for (const [what, stored, field] of cases) {
    it(what, () => {
      const err = appError(() => verify(PASSWORD, stored))
      expect(err.code).toBe('ERR_INVALID_HASH')
      expect(err.statusCode).toBe(400)
      if (field) expect(err.details?.field).toBe(field)
    })
  }

  it('over 3000 characters is refused by the schema', async () => {
    const { passwordVerifyBody } = await import('../../../src/ops/password/schema.ts')
    expect(passwordVerifyBody.safeParse({ password: 'x', hash: `$${'a'.repeat(2999)}` }).success).toBe(true)
    expect(passwordVerifyBody.safeParse({ password: 'x', hash: `$${'a'.repeat(3000)}` }).success).toBe(false)
  })

  it('random edits of valid hashes end in an answer or one of three codes, never another error', () => {
    // small caps, so that an edit that asks for much work is refused rather than run
    const caps: PasswordCaps = {
      password_argon2_memory_kib: 1024,
      password_argon2_iterations: 4,
      password_argon2_parallelism: 4,
      password_scrypt_n_r: 2 ** 12,
      password_scrypt_n_r_p: 2 ** 13,
      password_bcrypt_cost: 6,
      password_pbkdf2_iterations: 5000,
    }
    const seeds = [
      argon2('m=64,t=1,p=1'),
      hash({ password: PASSWORD, algorithm: 'argon2d', params: { memory_kib: 64, iterations: 1 } }).hash,
      hash({ password: PASSWORD, algorithm: 'scrypt', params: { log2_n: 4, block_size: 1 } }).hash,
      bcrypt,
      hash({ password: PASSWORD, algorithm: 'pbkdf2-sha512', params: { iterations: 1 } }).hash,
      `$pbkdf2-sha256$1212$${ab64Encode(Buffer.alloc(16))}$${ab64Encode(Buffer.alloc(32))}`,
    ]
    const alphabet = '$=,.+/-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ \u0000é'
    const edit = fc.record({
      seed: fc.constantFrom(...seeds),
      at: fc.nat(),
      remove: fc.integer({ min: 0, max: 3 }),
      insert: fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 4 }),
    })
    fc.assert(
      fc.property(edit, ({ seed, at, remove, insert }) => {
        const i = at % (seed.length + 1)
        const stored = seed.slice(0, i) + insert + seed.slice(i + remove)
        try {
          const result = verify(PASSWORD, stored, caps)
          expect(typeof result.valid).toBe('boolean')
        } catch (err) {
          if (!isAppError(err)) throw err
          expect(['ERR_INVALID_HASH', 'ERR_UNSUPPORTED_ALGORITHM', 'ERR_PLAN_CAP']).toContain(err.code)
        }
      }),
      { numRuns: 400 },
    )
  })
})

describe('a hash this service does not compute is 400 ERR_UNSUPPORTED_ALGORITHM', () => {
  const cases: [string, string][] = [
    ['Argon2 version 16 (no v=)', argon2('m=64,t=1,p=1', SALT, '')],
    ['Argon2 version 16 (v=16)', argon2('m=64,t=1,p=1', SALT, '$v=16')],
    ['Argon2 with a keyid', argon2('m=64,t=1,p=1,keyid=AAAA')],
    ['Argon2 with associated data', argon2('m=64,t=1,p=1,data=AAAA')],
    ["crypt_blowfish's $2x$", '$2x$05$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e'],
    ["bcrypt's original $2$", '$2$05$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e'],
    ['MD5-crypt', '$1$saltsalt$qjXMvbEw8oaL.CzflDugX/'],
    ['SHA-512-crypt', '$6$rounds=5000$saltsalt$abc'],
    ['yescrypt', '$y$j9T$saltsaltsalt$abc'],
    ['scrypt in its $7$ form', '$7$C6..../....SodiumChloride$kBGj9fHznVYFQMEn/qDCfrDevf9YDtcDdKvEqHJLV8D'],
    ["passlib's pbkdf2_sha1", '$pbkdf2$1212$OB.dtnSEXZK8U5cgxU/GYQ$y5LKPOplRmok7CZp/aqVDVg8zGI'],
  ]
  for (const [what, stored] of cases) {
    it(what, () => {
      const err = appError(() => verify(PASSWORD, stored))
      expect(err.code).toBe('ERR_UNSUPPORTED_ALGORITHM')
      expect(err.details?.supported).toEqual([
        'argon2id',
        'argon2i',
        'argon2d',
        'scrypt',
        'bcrypt',
        'pbkdf2-sha256',
        'pbkdf2-sha512',
      ])
    })
  }
})

describe('the plan caps what a stored hash asks', () => {
  it('at the cap it is verified, past it 422 ERR_PLAN_CAP', () => {
    expect(argon2('m=64,t=1,p=1')).toBe(VALID)
    const caps: PasswordCaps = { ...NO_CAPS, password_argon2_memory_kib: 64, password_bcrypt_cost: 4 }
    expect(verify(PASSWORD, argon2('m=64,t=1,p=1'), caps).valid).toBe(true)
    expect(appError(() => verify(PASSWORD, argon2('m=65,t=1,p=1'), caps)).details).toEqual({
      cap: 'password_argon2_memory_kib',
      max: 64,
      requested: 65,
    })
    const five = hash({ password: PASSWORD, algorithm: 'bcrypt', params: { cost: 5 } }).hash
    expect(appError(() => verify(PASSWORD, five, caps)).details).toEqual({
      cap: 'password_bcrypt_cost',
      max: 4,
      requested: 5,
    })
  })

  it('before any hashing: a stored hash asking for terabytes or centuries is answered at once', () => {
    const free = capsOf('free')
    const started = performance.now()
    const monsters = [
      argon2('m=4294967295,t=4294967295,p=16777215'),
      `$scrypt$ln=62,r=8,p=1$${SALT}$${'A'.repeat(43)}`,
      '$2b$31$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e',
      `$pbkdf2-sha512$i=4294967295$${SALT}$${'A'.repeat(86)}`,
    ]
    for (const stored of monsters)
      expect(appError(() => verify(PASSWORD, stored, free)).code).toBe('ERR_PLAN_CAP')
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it('its memory is what the stored parameters ask, or none for a hash that does not read', () => {
    expect(verifyMemoryBytes({ hash: argon2('m=4096,t=1,p=1') })).toBe(4096 * 1024)
    expect(verifyMemoryBytes({ hash: `$scrypt$ln=10,r=8,p=2$${SALT}$${'A'.repeat(43)}` })).toBe(
      128 * 8 * (1024 + 2) + 128 * 8 * 2,
    )
    expect(verifyMemoryBytes({ hash: 'not a hash' })).toBe(0)
  })
})

describe('scrypt parameters OpenSSL computes', () => {
  it('reads a stored hash at r·p = 2^24 - 1 and refuses one at 2^24 (128·r·p bytes in one buffer of at most 2^31 - 1)', () => {
    const salt = b64Encode(new Uint8Array(16))
    const out = b64Encode(new Uint8Array(32))
    expect(parseScrypt(parsePhc(`$scrypt$ln=10,r=4096,p=4095$${salt}$${out}`)).params.parallelism).toBe(4095)
    expect(() => parseScrypt(parsePhc(`$scrypt$ln=10,r=4096,p=4096$${salt}$${out}`))).toThrow(
      /at most 16777215/,
    )
  })
})
