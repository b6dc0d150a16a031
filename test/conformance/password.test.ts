import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { isAppError } from '../../src/errors.ts'
import { formatArgon2 } from '../../src/ops/password/argon2.ts'
import { PASSWORD_CAP_NAMES, type PasswordCaps } from '../../src/ops/password/types.ts'
import { verifyPassword } from '../../src/ops/password/verify.ts'
import { type PyValue, pyBytes, pyText, pythonTuples } from '../helpers/python-literals.ts'

// The password family against three public suites, vendored byte for byte (test/fixtures/conformance/
// PROVENANCE.md): the Argon2 reference implementation's test program, pyca/bcrypt's vectors, and passlib's
// known-correct PBKDF2 and scrypt hashes. Caps are lifted: these check the algorithms, not the plans.
const ROOT = new URL('../fixtures/conformance/', import.meta.url)
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8')
const NO_CAPS = Object.fromEntries(
  PASSWORD_CAP_NAMES.map((n) => [n, Number.MAX_SAFE_INTEGER]),
) as PasswordCaps

function verify(password: Buffer, hash: string) {
  return verifyPassword({ password: password.toString('hex'), password_encoding: 'hex', hash }, NO_CAPS)
}

// The same password but for its last byte (or one byte, for the empty password)
function altered(password: Buffer): Buffer {
  if (password.length === 0) return Buffer.from('x')
  const copy = Buffer.from(password)
  copy[copy.length - 1]! ^= 1
  return copy
}

// The strings of a Python list of plain string literals (passlib's known_malformed_hashes)
function stringList(source: string, opener: string): string[] {
  const start = source.indexOf(opener)
  return [...source.slice(start, source.indexOf(']', start)).matchAll(/^\s+"([^"]*)"/gm)].map((m) => m[1]!)
}

function codeOf(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    if (isAppError(err)) return err.code
    throw err
  }
  return 'no error'
}

describe('phc-winner-argon2 src/test.c', () => {
  const source = read('phc-winner-argon2/test.c')
  const strings = (literals: string) => [...literals.matchAll(/"([^"]*)"/g)].map((m) => m[1]).join('')
  const versionAt = (index: number) => {
    const assignments = [...source.slice(0, index).matchAll(/version = (ARGON2_VERSION_\w+);/g)]
    return assignments.at(-1)![1] === 'ARGON2_VERSION_10' ? 16 : 19
  }
  const largeRam = (index: number) => {
    const before = source.slice(0, index)
    return before.lastIndexOf('#ifdef TEST_LARGE_RAM') > before.lastIndexOf('#endif')
  }
  const cases = [
    ...source.matchAll(
      /hashtest\(version, (\d+), (\d+), (\d+), "([^"]*)", "([^"]*)",\s*"([0-9a-f]{64})",\s*((?:"[^"]*"\s*)+), Argon2_(i|d|id)\);/g,
    ),
  ].map((m) => ({
    t: Number(m[1]),
    m: 2 ** Number(m[2]),
    p: Number(m[3]),
    password: m[4]!,
    salt: m[5]!,
    tag: m[6]!,
    phc: strings(m[7]!),
    variant: `argon2${m[8]}` as 'argon2i' | 'argon2d' | 'argon2id',
    version: versionAt(m.index),
    // the reference's default build skips its 1 GiB cases too
    large: largeRam(m.index),
  }))
  const errorCases = [
    ...source.matchAll(
      /ret = argon2_verify\(((?:"[^"]*"\s*)+),\s*"password"[^;]*;\s*assert\(ret == (ARGON2_\w+)\);/g,
    ),
  ].map((m) => ({ phc: strings(m[1]!), expected: m[2]!, version: versionAt(m.index) }))

  it('holds the cases the reference runs', () => {
    expect(cases.length).toBe(26)
    expect(cases.filter((c) => c.large).length).toBe(2)
    expect(cases.filter((c) => !c.large && c.version === 19).length).toBe(16)
    expect(errorCases.length).toBe(8)
  })

  for (const c of cases.filter((c) => !c.large && c.version === 19)) {
    it(`${c.phc}: verifies, and the tag and the string are the reference's`, () => {
      // the string encodes the reference's tag, and verifying recomputes that tag
      const params = { memory_kib: c.m, iterations: c.t, parallelism: c.p }
      expect(formatArgon2(c.variant, params, Buffer.from(c.salt), Buffer.from(c.tag, 'hex'))).toBe(c.phc)
      expect(verify(Buffer.from(c.password), c.phc)).toMatchObject({ valid: true, algorithm: c.variant })
      // a wrong password, where it is cheap (the 256 KiB cases)
      if (c.m === 256) expect(verify(altered(Buffer.from(c.password)), c.phc).valid).toBe(false)
    })
  }

  it('refuses every version 16 hash as unsupported (OpenSSL computes version 19 only)', () => {
    const v16 = cases.filter((c) => c.version === 16)
    expect(v16.length).toBe(9)
    for (const c of v16)
      expect(codeOf(() => verify(Buffer.from(c.password), c.phc))).toBe('ERR_UNSUPPORTED_ALGORITHM')
  })

  for (const c of errorCases) {
    // a decoding failure or a short salt is a malformed hash; a mismatch is {valid: false}, except in
    // version 16, which is not computed at all
    const expected =
      c.expected === 'ARGON2_VERIFY_MISMATCH'
        ? c.version === 19
          ? 'valid: false'
          : 'ERR_UNSUPPORTED_ALGORITHM'
        : 'ERR_INVALID_HASH'
    it(`${c.expected} ${c.phc} → ${expected}`, () => {
      let outcome: string
      try {
        outcome = `valid: ${verify(Buffer.from('password'), c.phc).valid}`
      } catch (err) {
        if (!isAppError(err)) throw err
        outcome = err.code
      }
      expect(outcome).toBe(expected)
    })
  }
})

describe('pyca/bcrypt tests/test_bcrypt.py', () => {
  const source = read('pyca-bcrypt/test_bcrypt.py')
  const vectors = [
    ...pythonTuples(source, '_test_vectors = ['),
    ...pythonTuples(source, '_2y_test_vectors = ['),
  ].map(([password, salt, hash]) => ({
    password: pyBytes(password!),
    salt: pyText(salt!),
    hash: pyText(hash!),
  }))

  it('holds both lists whole', () => {
    expect(vectors.length).toBe(28)
  })

  for (const v of vectors) {
    it(`${v.hash}: verifies (password of ${v.password.length} bytes)`, () => {
      expect(verify(v.password, v.hash)).toMatchObject({
        valid: true,
        algorithm: 'bcrypt',
        needs_rehash: true,
      })
      expect(verify(altered(v.password), v.hash).valid).toBe(false)
    })
  }
})

// passlib's tests/test_handlers.py, where these names are defined
const PASSLIB_NAMES: Record<string, PyValue> = {
  UPASS_WAV: { kind: 'str', value: '\u0399\u03c9\u03b1\u03bd\u03bd\u03b7\u03c2' },
  UPASS_TABLE: { kind: 'str', value: 't\u00e1\u0411\u2113\u0259' },
  PASS_TABLE_UTF8: { kind: 'bytes', value: Buffer.from('74c3a1d091e28493c999', 'hex') },
}

describe('passlib tests/test_handlers_pbkdf2.py', () => {
  const source = read('passlib/test_handlers_pbkdf2.py')
  for (const [cls, algorithm] of [
    ['class pbkdf2_sha256_test', 'pbkdf2-sha256'],
    ['class pbkdf2_sha512_test', 'pbkdf2-sha512'],
  ] as const) {
    const body = source.slice(source.indexOf(cls))
    const vectors = pythonTuples(body, 'known_correct_hashes = [', PASSLIB_NAMES)
    it(`${cls}: both known-correct hashes, in passlib's ab64 form`, () => {
      expect(vectors.length).toBe(2)
      for (const [password, hash] of vectors) {
        expect(verify(pyBytes(password!), pyText(hash!))).toEqual({
          valid: true,
          algorithm,
          params: { iterations: 1212 },
          needs_rehash: true,
        })
        expect(verify(Buffer.from('wrong'), pyText(hash!)).valid).toBe(false)
      }
    })
  }

  it('refuses passlib pbkdf2_sha1 ($pbkdf2$) as unsupported, and its malformed hashes', () => {
    const sha1 = pythonTuples(
      source.slice(source.indexOf('class pbkdf2_sha1_test')),
      'known_correct_hashes = [',
      PASSLIB_NAMES,
    )
    const bad = stringList(source.slice(source.indexOf('class pbkdf2_sha1_test')), 'known_malformed_hashes')
    expect(sha1.length).toBe(2)
    expect(bad.length).toBe(3)
    for (const [password, hash] of sha1)
      expect(codeOf(() => verify(pyBytes(password!), pyText(hash!)))).toBe('ERR_UNSUPPORTED_ALGORITHM')
    for (const hash of bad)
      expect(codeOf(() => verify(Buffer.from('x'), hash))).toBe('ERR_UNSUPPORTED_ALGORITHM')
  })
})

describe('passlib tests/test_handlers_scrypt.py', () => {
  const source = read('passlib/test_handlers_scrypt.py')
  const vectors = [
    ...pythonTuples(source, 'known_correct_hashes = [', PASSLIB_NAMES),
    ...pythonTuples(source, 'known_correct_hashes.extend(\n            [', PASSLIB_NAMES),
  ].map(([password, hash]) => ({ password: pyBytes(password!), hash: pyText(hash!) }))

  it('holds the default and the "full" lists', () => {
    expect(vectors.length).toBe(9)
  })

  for (const v of vectors.filter((v) => v.hash.startsWith('$scrypt$'))) {
    it(`${v.hash}: verifies`, () => {
      expect(verify(v.password, v.hash)).toMatchObject({
        valid: true,
        algorithm: 'scrypt',
        needs_rehash: true,
      })
      expect(verify(altered(v.password), v.hash).valid).toBe(false)
    })
  }

  it("refuses the scrypt paper's $7$ format as unsupported", () => {
    const seven = vectors.filter((v) => v.hash.startsWith('$7$'))
    expect(seven.length).toBe(1)
    expect(codeOf(() => verify(seven[0]!.password, seven[0]!.hash))).toBe('ERR_UNSUPPORTED_ALGORITHM')
  })

  it('refuses each of its malformed hashes as malformed', () => {
    const bad = stringList(source, 'known_malformed_hashes')
    expect(bad.length).toBe(4)
    for (const hash of bad) expect(codeOf(() => verify(Buffer.from('x'), hash))).toBe('ERR_INVALID_HASH')
  })
})
