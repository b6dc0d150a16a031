import fc from 'fast-check'
import { expect, it } from 'vitest'
import { hashPassword } from '../../../src/ops/password/hash.ts'
import { passwordHashBody } from '../../../src/ops/password/schema.ts'
import { PASSWORD_CAP_NAMES, type PasswordCaps } from '../../../src/ops/password/types.ts'
import { verifyPassword } from '../../../src/ops/password/verify.ts'
import { describePython, runPython } from '../../helpers/python.ts'

// Round trips against an independent implementation: Python's argon2-cffi (libargon2), bcrypt and
// hashlib (OpenSSL's scrypt and PBKDF2, but its own PHC parsing, written below). Our hashes verify there,
// theirs verify here, for random passwords (any bytes, not only UTF-8 text) and the default parameters.
const NO_CAPS = Object.fromEntries(
  PASSWORD_CAP_NAMES.map((n) => [n, Number.MAX_SAFE_INTEGER]),
) as PasswordCaps

// Python checks each {password (Base64), hash} it is given, with the password and with the password
// altered in its last byte, and prints [[matches, altered matches], ...].
const PY_VERIFY = `
import base64, hashlib, hmac, json, sys, bcrypt
from argon2.low_level import Type, verify_secret
from argon2.exceptions import VerifyMismatchError

def b64d(s):
    return base64.b64decode(s + '=' * (-len(s) % 4), validate=True)

def check(password, h):
    parts = h.split('$')
    if parts[1].startswith('argon2'):
        kind = {'argon2id': Type.ID, 'argon2i': Type.I, 'argon2d': Type.D}[parts[1]]
        try:
            return verify_secret(h.encode(), password, kind)
        except VerifyMismatchError:
            return False
    if parts[1] == '2b':
        return bcrypt.checkpw(password, h.encode())
    salt, want = b64d(parts[3]), b64d(parts[4])
    if parts[1] == 'scrypt':
        ln, r, p = [int(kv.split('=')[1]) for kv in parts[2].split(',')]
        got = hashlib.scrypt(password, salt=salt, n=2**ln, r=r, p=p, dklen=len(want), maxmem=2**31 - 1)
        return hmac.compare_digest(got, want)
    if parts[1] in ('pbkdf2-sha256', 'pbkdf2-sha512'):
        iterations = int(parts[2].split('=')[1])
        got = hashlib.pbkdf2_hmac(parts[1][7:], password, salt, iterations, len(want))
        return hmac.compare_digest(got, want)
    raise ValueError('unexpected hash')

def altered(p):
    # the last byte changed, never into a NUL (the bcrypt module refuses one)
    return p[:-1] + bytes([(p[-1] ^ 1) or 3]) if p else b'x'

out = []
for case in json.load(sys.stdin):
    p = base64.b64decode(case['password'])
    out.append([check(p, case['hash']), check(altered(p), case['hash'])])
print(json.dumps(out))
`

// Python makes hashes of each password it is given (Base64) in every form this service reads and prints
// [{password, hash}, ...]: argon2-cffi's PasswordHasher (its own defaults once) and low-level strings,
// bcrypt's $2a$ and $2b$ (and $2y$, the same hash under PHP's prefix), scrypt and PBKDF2 written as
// passlib writes them (PHC B64, and ab64 for passlib's PBKDF2) and as RustCrypto writes PBKDF2 (i=, l=).
const PY_HASH = `
import base64, hashlib, json, os, sys, argon2, bcrypt
from argon2.low_level import Type, hash_secret

def b64e(b):
    return base64.b64encode(b).decode().rstrip('=')

def ab64e(b):
    return b64e(b).replace('+', '.')

cases = json.load(sys.stdin)
out = []
for i, case in enumerate(cases):
    p = base64.b64decode(case['password'])
    hashes = [
        argon2.PasswordHasher(time_cost=2, memory_cost=1024, parallelism=2).hash(p),
        hash_secret(p, os.urandom(16), time_cost=3, memory_cost=512, parallelism=1, hash_len=32, type=Type.I).decode(),
        hash_secret(p, os.urandom(12), time_cost=2, memory_cost=256, parallelism=4, hash_len=24, type=Type.D).decode(),
    ]
    if i == 0:
        hashes.append(argon2.PasswordHasher().hash(p))
    if case['bcrypt']:
        b = bcrypt.hashpw(p, bcrypt.gensalt(rounds=4, prefix=b'2b')).decode()
        hashes += [b, '$2y$' + b[4:], bcrypt.hashpw(p, bcrypt.gensalt(rounds=5, prefix=b'2a')).decode()]
    salt = os.urandom(16)
    hashes.append('$scrypt$ln=10,r=8,p=2$%s$%s' % (b64e(salt), b64e(hashlib.scrypt(p, salt=salt, n=1024, r=8, p=2, dklen=32))))
    hashes.append('$scrypt$ln=4,r=1,p=1$$%s' % b64e(hashlib.scrypt(p, salt=b'', n=16, r=1, p=1, dklen=64)))
    dk = hashlib.pbkdf2_hmac('sha256', p, salt, 1000, 32)
    hashes.append('$pbkdf2-sha256$i=1000$%s$%s' % (b64e(salt), b64e(dk)))
    hashes.append('$pbkdf2-sha256$i=1000,l=32$%s$%s' % (b64e(salt), b64e(dk)))
    hashes.append('$pbkdf2-sha512$1000$%s$%s' % (ab64e(salt), ab64e(hashlib.pbkdf2_hmac('sha512', p, salt, 1000, 64))))
    out += [{'password': case['password'], 'hash': h} for h in hashes]
print(json.dumps(out))
`

// Random passwords: UTF-8 text (any code points) and raw bytes; bcrypt's only up to 72 bytes without NUL.
function passwords(): Buffer[] {
  const text = fc.sample(fc.string({ unit: 'grapheme', maxLength: 40 }), 4).map((s) => Buffer.from(s, 'utf8'))
  const bytes = fc.sample(fc.uint8Array({ minLength: 1, maxLength: 100 }), 4).map((b) => Buffer.from(b))
  return [
    Buffer.from('correct horse battery staple'),
    Buffer.alloc(0),
    Buffer.alloc(4096, 0x61),
    // ends in 0x01: its altered form must not end in a NUL (a case once found by chance)
    Buffer.from([0x41, 0x01]),
    ...text,
    ...bytes,
  ]
}
const bcryptTakes = (p: Buffer) => p.length <= 72 && !p.includes(0)

function ours(password: Buffer, body: Record<string, unknown>) {
  const parsed = passwordHashBody.parse({
    password: password.toString('base64'),
    password_encoding: 'base64',
    ...body,
  })
  return hashPassword(parsed, NO_CAPS).hash
}

function verifiedHere(password: string, hash: string): boolean {
  return verifyPassword({ password, password_encoding: 'base64', hash }, NO_CAPS).valid
}

describePython('the password family against Python (argon2-cffi, bcrypt, hashlib)', () => {
  it('our hashes verify in Python, and an altered password does not', () => {
    const cases: { password: string; hash: string }[] = []
    for (const [i, password] of passwords().entries()) {
      const bodies: Record<string, unknown>[] = [
        { algorithm: 'argon2id', params: { memory_kib: 1024, iterations: 2, parallelism: 2 } },
        { algorithm: 'argon2i', params: { memory_kib: 256, iterations: 3, parallelism: 1 } },
        { algorithm: 'argon2d', params: { memory_kib: 512, iterations: 1, parallelism: 4 } },
        { algorithm: 'scrypt', params: { log2_n: 10, block_size: 8, parallelism: 2 } },
        { algorithm: 'pbkdf2-sha256', params: { iterations: 1000 } },
        { algorithm: 'pbkdf2-sha512', params: { iterations: 1000 } },
      ]
      if (bcryptTakes(password)) bodies.push({ algorithm: 'bcrypt', params: { cost: 4 } })
      // the defaults once: argon2id, scrypt (128 MiB), bcrypt and PBKDF2 at OWASP's parameters
      if (i === 0)
        bodies.push({}, { algorithm: 'scrypt' }, { algorithm: 'bcrypt' }, { algorithm: 'pbkdf2-sha512' })
      for (const body of bodies)
        cases.push({ password: password.toString('base64'), hash: ours(password, body) })
    }
    const results = runPython<[boolean, boolean][]>(PY_VERIFY, cases)
    expect(results.length).toBe(cases.length)
    const wrong = cases.filter((_, i) => results[i]![0] !== true || results[i]![1] !== false)
    expect(wrong).toEqual([])
  })

  it("Python's hashes verify here, and an altered password does not", () => {
    const input = passwords().map((p) => ({ password: p.toString('base64'), bcrypt: bcryptTakes(p) }))
    const made = runPython<{ password: string; hash: string }[]>(PY_HASH, input)
    expect(made.length).toBeGreaterThan(input.length * 9)
    const wrong = made.filter(({ password, hash }) => {
      const bytes = Buffer.from(password, 'base64')
      const altered = bytes.length ? Buffer.from(bytes) : Buffer.from('x')
      if (bytes.length) altered[altered.length - 1]! ^= 1
      return !verifiedHere(password, hash) || verifiedHere(altered.toString('base64'), hash)
    })
    expect(wrong).toEqual([])
  })
})
