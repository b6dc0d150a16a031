import { describe, expect, it } from 'vitest'
import { argon2Caps } from '../../../src/ops/password/argon2.ts'
import { capsOf, PASSWORD_CAPS } from '../../../src/ops/password/caps.ts'
import { checkHashCaps, hashMemoryBytes, resolveParams } from '../../../src/ops/password/hash.ts'
import { ARGON2ID_OPTIONS } from '../../../src/ops/password/policy.ts'
import { passwordHashBody } from '../../../src/ops/password/schema.ts'
import { scryptCaps } from '../../../src/ops/password/scrypt.ts'
import {
  PASSWORD_ALGORITHMS,
  PASSWORD_CAP_NAMES,
  type PasswordCaps,
} from '../../../src/ops/password/types.ts'
import { appError, hash, NO_CAPS, verify } from '../../helpers/password.ts'

const PASSWORD = 'correct horse battery staple'
const B64 = '[A-Za-z0-9+/]'

describe('password.hash at the defaults (OWASP Password Storage Cheat Sheet)', () => {
  const cases = [
    { algorithm: undefined, id: 'argon2id', params: { memory_kib: 19_456, iterations: 2, parallelism: 1 } },
    { algorithm: 'argon2i', id: 'argon2i', params: { memory_kib: 12_288, iterations: 3, parallelism: 1 } },
    { algorithm: 'argon2d', id: 'argon2d', params: { memory_kib: 19_456, iterations: 2, parallelism: 1 } },
    { algorithm: 'scrypt', id: 'scrypt', params: { log2_n: 17, block_size: 8, parallelism: 1 } },
    { algorithm: 'bcrypt', id: 'bcrypt', params: { cost: 10 } },
    { algorithm: 'pbkdf2-sha256', id: 'pbkdf2-sha256', params: { iterations: 600_000 } },
    { algorithm: 'pbkdf2-sha512', id: 'pbkdf2-sha512', params: { iterations: 220_000 } },
  ]
  const SHAPES: Record<string, RegExp> = {
    argon2id: new RegExp(`^\\$argon2id\\$v=19\\$m=19456,t=2,p=1\\$${B64}{22}\\$${B64}{43}$`),
    argon2i: new RegExp(`^\\$argon2i\\$v=19\\$m=12288,t=3,p=1\\$${B64}{22}\\$${B64}{43}$`),
    argon2d: new RegExp(`^\\$argon2d\\$v=19\\$m=19456,t=2,p=1\\$${B64}{22}\\$${B64}{43}$`),
    scrypt: new RegExp(`^\\$scrypt\\$ln=17,r=8,p=1\\$${B64}{22}\\$${B64}{43}$`),
    bcrypt: /^\$2b\$10\$[./A-Za-z0-9]{53}$/,
    'pbkdf2-sha256': new RegExp(`^\\$pbkdf2-sha256\\$i=600000\\$${B64}{22}\\$${B64}{43}$`),
    'pbkdf2-sha512': new RegExp(`^\\$pbkdf2-sha512\\$i=220000\\$${B64}{22}\\$${B64}{86}$`),
  }
  for (const c of cases) {
    it(`${c.algorithm ?? '(no algorithm)'} → ${c.id} with ${JSON.stringify(c.params)}, and it verifies`, () => {
      const made = hash({ password: PASSWORD, ...(c.algorithm ? { algorithm: c.algorithm } : {}) })
      expect(made.algorithm).toBe(c.id)
      expect(made.params).toEqual(c.params)
      expect(made.hash).toMatch(SHAPES[c.id]!)
      expect(verify(PASSWORD, made.hash)).toMatchObject({ valid: true, algorithm: c.id, params: c.params })
    })
  }
})

describe('password.hash, every algorithm on cheap parameters', () => {
  const cheap: Record<string, unknown>[] = [
    { algorithm: 'argon2id', params: { memory_kib: 64, iterations: 1 } },
    { algorithm: 'argon2i', params: { memory_kib: 64, iterations: 1 } },
    { algorithm: 'argon2d', params: { memory_kib: 64, iterations: 1 } },
    { algorithm: 'scrypt', params: { log2_n: 4, block_size: 1 } },
    { algorithm: 'bcrypt', params: { cost: 4 } },
    { algorithm: 'pbkdf2-sha256', params: { iterations: 1 } },
    { algorithm: 'pbkdf2-sha512', params: { iterations: 1 } },
  ]
  for (const body of cheap) {
    it(`${body.algorithm}: a fresh salt each time; a wrong password does not verify`, () => {
      const first = hash({ password: PASSWORD, ...body })
      expect(hash({ password: PASSWORD, ...body }).hash).not.toBe(first.hash)
      expect(verify(PASSWORD, first.hash).valid).toBe(true)
      expect(verify(`${PASSWORD}.`, first.hash).valid).toBe(false)
      expect(verify(PASSWORD.slice(1), first.hash).valid).toBe(false)
    })
  }
})

describe('password.hash with params', () => {
  it('uses the ones given and the defaults for the rest', () => {
    const r = hash({ password: PASSWORD, params: { memory_kib: 1024, parallelism: 2 } })
    expect(r.params).toEqual({ memory_kib: 1024, iterations: 2, parallelism: 2 })
    expect(r.hash).toMatch(/^\$argon2id\$v=19\$m=1024,t=2,p=2\$/)
    expect(
      hash({ password: PASSWORD, algorithm: 'scrypt', params: { log2_n: 10, parallelism: 3 } }).hash,
    ).toMatch(/^\$scrypt\$ln=10,r=8,p=3\$/)
    expect(hash({ password: PASSWORD, algorithm: 'bcrypt', params: { cost: 4 } }).hash).toMatch(/^\$2b\$04\$/)
    expect(hash({ password: PASSWORD, algorithm: 'pbkdf2-sha512', params: { iterations: 1 } }).hash).toMatch(
      /^\$pbkdf2-sha512\$i=1\$/,
    )
  })

  it('refuses, at its own path, a parameter of another algorithm than the one named (or defaulted)', () => {
    const issues = (body: unknown) =>
      passwordHashBody.safeParse(body).error?.issues.map((i) => i.path.join('.'))
    expect(issues({ password: 'x', params: { cost: 12 } })).toEqual(['params.cost'])
    expect(issues({ password: 'x', algorithm: 'bcrypt', params: { cost: 12, iterations: 3 } })).toEqual([
      'params.iterations',
    ])
    expect(issues({ password: 'x', algorithm: 'scrypt', params: { memory_kib: 8 } })).toEqual([
      'params.memory_kib',
    ])
    expect(issues({ password: 'x', algorithm: 'pbkdf2-sha256', params: { parallelism: 2 } })).toEqual([
      'params.parallelism',
    ])
    expect(issues({ password: 'x', params: { memroy_kib: 8 } })).toEqual(['params'])
  })

  it("refuses what the algorithms cannot compute: argon2 under 8 KiB a lane or over 255 lanes, scrypt's N ≥ 2^(16·r), r·p over OpenSSL's 2^24 - 1", () => {
    const ok = (body: unknown) => passwordHashBody.safeParse(body).success
    expect(ok({ password: 'x', params: { memory_kib: 16, parallelism: 2 } })).toBe(true)
    expect(ok({ password: 'x', params: { memory_kib: 15, parallelism: 2 } })).toBe(false)
    expect(ok({ password: 'x', params: { memory_kib: 2040, parallelism: 255 } })).toBe(true)
    expect(ok({ password: 'x', params: { memory_kib: 2048, parallelism: 256 } })).toBe(false)
    expect(ok({ password: 'x', algorithm: 'scrypt', params: { log2_n: 15, block_size: 1 } })).toBe(true)
    expect(ok({ password: 'x', algorithm: 'scrypt', params: { log2_n: 16, block_size: 1 } })).toBe(false)
    // OpenSSL holds 128·r·p bytes in one buffer of at most 2^31 - 1: r·p at most 2^24 - 1, narrower than
    // RFC 7914's 2^30 - 1
    expect(
      ok({ password: 'x', algorithm: 'scrypt', params: { block_size: 2 ** 12, parallelism: 2 ** 12 - 1 } }),
    ).toBe(true)
    expect(
      ok({ password: 'x', algorithm: 'scrypt', params: { block_size: 2 ** 12, parallelism: 2 ** 12 } }),
    ).toBe(false)
    expect(
      ok({ password: 'x', algorithm: 'scrypt', params: { block_size: 2 ** 15, parallelism: 2 ** 15 - 1 } }),
    ).toBe(false)
    expect(ok({ password: 'x', algorithm: 'bcrypt', params: { cost: 3 } })).toBe(false)
    expect(ok({ password: 'x', algorithm: 'bcrypt', params: { cost: 32 } })).toBe(false)
  })
})

describe('per-plan caps', () => {
  const capped = (cap: (typeof PASSWORD_CAP_NAMES)[number], max: number): PasswordCaps => ({
    ...NO_CAPS,
    [cap]: max,
  })
  // each cap at its bound (answered) and one past it (422 ERR_PLAN_CAP naming it), on cheap parameters
  const cases = [
    {
      cap: 'password_argon2_memory_kib',
      max: 64,
      at: { params: { memory_kib: 64, iterations: 1 } },
      past: { params: { memory_kib: 65, iterations: 1 } },
      requested: 65,
    },
    {
      cap: 'password_argon2_iterations',
      max: 2,
      at: { params: { memory_kib: 64, iterations: 2 } },
      past: { params: { memory_kib: 64, iterations: 3 } },
      requested: 3,
    },
    {
      cap: 'password_argon2_parallelism',
      max: 2,
      at: { params: { memory_kib: 64, parallelism: 2 } },
      past: { params: { memory_kib: 64, parallelism: 3 } },
      requested: 3,
    },
    {
      cap: 'password_scrypt_n_r',
      max: 2 ** 10,
      at: { algorithm: 'scrypt', params: { log2_n: 9, block_size: 2 } },
      past: { algorithm: 'scrypt', params: { log2_n: 10, block_size: 2 } },
      requested: 2 ** 11,
    },
    {
      cap: 'password_scrypt_n_r_p',
      max: 2 ** 11,
      at: { algorithm: 'scrypt', params: { log2_n: 10, block_size: 1, parallelism: 2 } },
      past: { algorithm: 'scrypt', params: { log2_n: 10, block_size: 1, parallelism: 3 } },
      requested: 3 * 2 ** 10,
    },
    {
      cap: 'password_bcrypt_cost',
      max: 5,
      at: { algorithm: 'bcrypt', params: { cost: 5 } },
      past: { algorithm: 'bcrypt', params: { cost: 6 } },
      requested: 6,
    },
    {
      cap: 'password_pbkdf2_iterations',
      max: 1000,
      at: { algorithm: 'pbkdf2-sha512', params: { iterations: 1000 } },
      past: { algorithm: 'pbkdf2-sha256', params: { iterations: 1001 } },
      requested: 1001,
    },
  ] as const
  it('covers every cap', () => {
    expect(cases.map((c) => c.cap).sort()).toEqual([...PASSWORD_CAP_NAMES].sort())
  })
  for (const c of cases) {
    it(`${c.cap}: ${c.max} is answered, one past is 422 ERR_PLAN_CAP naming it`, () => {
      const caps = capped(c.cap, c.max)
      expect(hash({ password: PASSWORD, ...c.at }, caps).hash).toMatch(/^\$/)
      const err = appError(() => hash({ password: PASSWORD, ...c.past }, caps))
      expect(err.code).toBe('ERR_PLAN_CAP')
      expect(err.statusCode).toBe(422)
      expect(err.details).toEqual({ cap: c.cap, max: c.max, requested: c.requested })
      expect(err.message).toContain(c.cap)
    })
  }

  it('refuses before hashing: 4 TiB of argon2 or 2^31 bcrypt rounds are answered at once', () => {
    const free = capsOf('free')
    const started = performance.now()
    expect(appError(() => hash({ password: 'x', params: { memory_kib: 2 ** 32 - 1 } }, free)).code).toBe(
      'ERR_PLAN_CAP',
    )
    expect(
      appError(() => hash({ password: 'x', algorithm: 'bcrypt', params: { cost: 31 } }, free)).code,
    ).toBe('ERR_PLAN_CAP')
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it("every plan takes every OWASP default and option, and argon2-cffi's RFC 9106 low-memory profile", () => {
    for (const plan of ['free', 'pro', 'business'] as const) {
      const caps = capsOf(plan)
      for (const algorithm of PASSWORD_ALGORITHMS) {
        checkHashCaps(resolveParams(passwordHashBody.parse({ password: 'x', algorithm })), caps)
      }
      for (const [memory_kib, iterations] of ARGON2ID_OPTIONS)
        argon2Caps({ memory_kib, iterations, parallelism: 1 }, caps)
      argon2Caps({ memory_kib: 65_536, iterations: 3, parallelism: 4 }, caps)
      for (const [log2_n, parallelism] of [
        [17, 1],
        [16, 2],
        [15, 3],
        [14, 5],
        [13, 10],
      ] as const) {
        scryptCaps({ log2_n, block_size: 8, parallelism }, caps)
      }
    }
  })

  it('are no smaller on a dearer plan', () => {
    for (const row of Object.values(PASSWORD_CAPS)) {
      expect(row.free).toBeLessThanOrEqual(row.pro)
      expect(row.pro).toBeLessThanOrEqual(row.business)
    }
  })
})

describe('the password', () => {
  it('is at most 4096 bytes: at the bound it is hashed, one byte past is ERR_PASSWORD_TOO_LONG', () => {
    const at = [
      { password: 'a'.repeat(4096) },
      { password: 'é'.repeat(2048) },
      { password: 'ab'.repeat(4096), password_encoding: 'hex' },
    ]
    for (const body of at)
      expect(hash({ ...body, algorithm: 'pbkdf2-sha256', params: { iterations: 1 } }).hash).toMatch(/^\$/)
    const past = [
      { password: 'a'.repeat(4097) },
      { password: `${'é'.repeat(2048)}a` },
      { password: 'ab'.repeat(4097), password_encoding: 'hex' },
      { password: 'a'.repeat(1_000_000) },
    ]
    for (const body of past) {
      const err = appError(() => hash({ ...body, algorithm: 'pbkdf2-sha256', params: { iterations: 1 } }))
      expect(err.code).toBe('ERR_PASSWORD_TOO_LONG')
      expect(err.details).toEqual({ max_bytes: 4096 })
    }
  })

  it('bcrypt: 72 bytes are hashed whole, 73 are refused (never truncated), a NUL byte is refused', () => {
    const at72 = hash({ password: 'é'.repeat(36), algorithm: 'bcrypt', params: { cost: 4 } })
    expect(verify('é'.repeat(36), at72.hash).valid).toBe(true)
    expect(verify(`${'é'.repeat(35)}e`, at72.hash).valid).toBe(false)
    for (const password of [`${'é'.repeat(36)}a`, 'a'.repeat(73)]) {
      const err = appError(() => hash({ password, algorithm: 'bcrypt', params: { cost: 4 } }))
      expect(err.code).toBe('ERR_PASSWORD_TOO_LONG')
      expect(err.details).toEqual({ algorithm: 'bcrypt', max_bytes: 72 })
      // and a verification with it too: the 73rd byte would otherwise be ignored
      expect(appError(() => verify(password, at72.hash)).code).toBe('ERR_PASSWORD_TOO_LONG')
    }
    const nul = appError(() => hash({ password: 'abc\u0000def', algorithm: 'bcrypt', params: { cost: 4 } }))
    expect(nul.code).toBe('ERR_INVALID_PASSWORD')
    expect(nul.details).toEqual({ algorithm: 'bcrypt', reason: 'nul_byte' })
    // other algorithms take every byte
    const argon = hash({ password: 'abc\u0000def', params: { memory_kib: 64, iterations: 1 } })
    expect(verify('abc\u0000def', argon.hash).valid).toBe(true)
    expect(verify('abc', argon.hash).valid).toBe(false)
  })

  it('is hashed as its UTF-8 bytes, never normalized; a lone surrogate or bad hex is ERR_INVALID_ENCODING', () => {
    const composed = hash({ password: '\u00e9', params: { memory_kib: 64, iterations: 1 } })
    expect(verify('\u00e9', composed.hash).valid).toBe(true)
    expect(verify('e\u0301', composed.hash).valid).toBe(false)
    const bytes = hash({
      password: 'c3a9',
      password_encoding: 'hex',
      params: { memory_kib: 64, iterations: 1 },
    })
    expect(verify('\u00e9', bytes.hash).valid).toBe(true)
    expect(appError(() => hash({ password: 'a\ud800b' })).details).toMatchObject({
      field: 'password',
      position: 1,
    })
    expect(appError(() => hash({ password: 'zz', password_encoding: 'hex' })).code).toBe(
      'ERR_INVALID_ENCODING',
    )
  })
})

describe('memory one hash holds (for admission by memory)', () => {
  it('is argon2 m KiB, scrypt 128·r·(N+2) + 128·r·p bytes, and nothing to speak of for bcrypt and PBKDF2', () => {
    expect(hashMemoryBytes({ algorithm: 'argon2id', params: undefined })).toBe(19_456 * 1024)
    expect(hashMemoryBytes({ algorithm: 'argon2i', params: { memory_kib: 65_536 } })).toBe(64 * 2 ** 20)
    expect(hashMemoryBytes({ algorithm: 'scrypt', params: undefined })).toBe(
      128 * 8 * (2 ** 17 + 2) + 128 * 8,
    )
    expect(hashMemoryBytes({ algorithm: 'bcrypt', params: undefined })).toBe(0)
    expect(hashMemoryBytes({ algorithm: 'pbkdf2-sha512', params: undefined })).toBe(0)
  })
})
