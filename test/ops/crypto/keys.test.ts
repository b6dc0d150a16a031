import { generateKeyPairSync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { convertKey, thumbprintKey } from '../../../src/ops/crypto/convert.ts'
import { RFC7638_KEY } from '../../../src/ops/crypto/examples.ts'
import { generateKeypair, RSA_BITS_CAP } from '../../../src/ops/crypto/keypair.ts'

const cookbook = (path: string) =>
  JSON.parse(
    readFileSync(new URL(`../../fixtures/conformance/jose-cookbook/${path}`, import.meta.url), 'utf8'),
  ) as Record<string, unknown> & { input: { key: Record<string, unknown> } }

// a JWK's key members, without the metadata (kid, use, alg) that convert does not carry
function members(jwk: Record<string, unknown>): Record<string, unknown> {
  const { kid: _kid, use: _use, alg: _alg, key_ops: _ops, ...rest } = jwk
  return rest
}
const PUBLIC = ['kty', 'crv', 'n', 'e', 'x', 'y']
const publicOf = (jwk: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(members(jwk)).filter(([k]) => PUBLIC.includes(k)))

// RFC 7517 Appendix A.1 and A.2
const A1_EC = {
  kty: 'EC',
  crv: 'P-256',
  x: 'MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4',
  y: '4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM',
  use: 'enc',
  kid: '1',
}
const A2_EC = { ...A1_EC, d: '870MB6gfuTJ4HtUnUvYMyJpr5eUZNP4Bk43bVdj3eAE' }

describe('RFC 7517, 7638, 8037 and the JOSE Cookbook (RFC 7520)', () => {
  it("RFC 7638 §3.1: the thumbprint of RFC 7517 A.1's RSA key", async () => {
    expect((await thumbprintKey({ key: RFC7638_KEY })).thumbprint).toBe(
      'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
    )
  })

  it('RFC 8037 A.3: the thumbprint of its Ed25519 key, from the private JWK too', async () => {
    const key = cookbook('curve25519/jws.json').input.key
    expect(key.x).toBe('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo')
    for (const k of [key, publicOf(key)]) {
      expect((await thumbprintKey({ key: k })).thumbprint).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k')
    }
  })

  it('RFC 7517 A.1/A.2: the EC key, JWK → PEM → JWK, private and public', async () => {
    const fromJwk = await convertKey({ key: A2_EC })
    expect(fromJwk).toMatchObject({ kind: 'private', type: 'ec', curve: 'P-256' })
    expect(fromJwk.private_key!.jwk).toEqual(members(A2_EC))
    expect(fromJwk.public_key.jwk).toEqual(publicOf(A1_EC))
    const back = await convertKey({ key: fromJwk.private_key!.pem })
    expect(back.private_key).toEqual(fromJwk.private_key)
    expect(back.public_key).toEqual(fromJwk.public_key)
    expect(back.thumbprint).toBe(fromJwk.thumbprint)
    const pub = await convertKey({ key: fromJwk.public_key.pem })
    expect(pub).toMatchObject({ kind: 'public', public_key: fromJwk.public_key })
    expect(pub.private_key).toBeUndefined()
  })

  it.each([
    'jwk/3_1.ec_public_key.json',
    'jwk/3_2.ec_private_key.json',
    'jwk/3_3.rsa_public_key.json',
    'jwk/3_4.rsa_private_key.json',
    'curve25519/jws.json',
    'curve25519/ecdh-es.json',
  ])("the cookbook's %s converts both ways, members unchanged", async (file) => {
    const json = cookbook(file)
    const jwk = (json.input?.key ?? json) as Record<string, unknown>
    const converted = await convertKey({ key: jwk })
    const isPrivate = Object.hasOwn(jwk, 'd')
    expect(converted.kind).toBe(isPrivate ? 'private' : 'public')
    expect((isPrivate ? converted.private_key! : converted.public_key).jwk).toEqual(members(jwk))
    expect(converted.public_key.jwk).toEqual(publicOf(jwk))
    const again = await convertKey({ key: (isPrivate ? converted.private_key! : converted.public_key).pem })
    expect(again).toEqual(converted)
  })
})

describe('reading PEM', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' })

  it('PKCS#1 and SEC1 private keys, PKCS#1 public keys, read as PKCS#8 and SPKI would be', async () => {
    const pkcs8 = await convertKey({ key: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string })
    const pkcs1 = await convertKey({ key: rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string })
    expect(pkcs1).toEqual(pkcs8)
    expect(pkcs8.private_key!.pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/)
    const spki = await convertKey({ key: rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string })
    const pkcs1Public = await convertKey({
      key: rsa.publicKey.export({ type: 'pkcs1', format: 'pem' }) as string,
    })
    expect(pkcs1Public).toEqual(spki)
    expect(spki.public_key).toEqual(pkcs8.public_key)
    const sec1 = await convertKey({ key: ec.privateKey.export({ type: 'sec1', format: 'pem' }) as string })
    expect(sec1).toMatchObject({ kind: 'private', type: 'ec', curve: 'P-384' })
  })

  it('refuses encrypted keys, several blocks, symmetric JWKs, RSA private JWKs without CRT members, garbage; never repeating the key', async () => {
    const encrypted = rsa.privateKey.export({
      type: 'pkcs8',
      format: 'pem',
      cipher: 'aes-256-cbc',
      passphrase: 'x',
    })
    const pem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string
    const jwk = rsa.privateKey.export({ format: 'jwk' }) as Record<string, string>
    const cases: [unknown, RegExp][] = [
      [encrypted, /encrypted private key/],
      [`${pem}${pem}`, /more than one PEM block/],
      [{ kty: 'oct', k: 'AAAA' }, /symmetric/],
      [{ kty: 'RSA', n: jwk.n, e: jwk.e, d: jwk.d }, /CRT members/],
      [{ kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' }, /not a valid JWK/],
      [pem.replace(/[A-Za-z]{20}/, 'x'.repeat(20)), /not a readable "PRIVATE KEY" PEM block/],
      ['hello', /neither a PEM block nor a JWK/],
    ]
    for (const [key, message] of cases) {
      let caught: Error | undefined
      try {
        await convertKey({ key: key as string })
      } catch (err) {
        caught = err as Error
      }
      expect(caught).toMatchObject({
        code: 'ERR_INVALID_KEY_MATERIAL',
        details: expect.objectContaining({ field: 'key' }),
      })
      expect(caught!.message).toMatch(message)
      expect(
        JSON.stringify({ m: caught!.message, d: (caught as { details?: unknown }).details }),
      ).not.toContain(jwk.d!.slice(0, 12))
    }
  })

  it('reads an X.509 certificate as its public key, and keys of every type with a JWK form', async () => {
    const { generate } = await import('selfsigned')
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
    })
    const fromCert = await convertKey({ key: pems.cert })
    const fromKey = await convertKey({ key: pems.private })
    expect(fromCert).toMatchObject({
      kind: 'public',
      type: 'ec',
      curve: 'P-256',
      public_key: fromKey.public_key,
    })
    for (const type of ['ed448', 'x448', 'x25519'] as const) {
      const pair = generateKeyPairSync(type as 'ed448')
      const read = await convertKey({
        key: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      })
      expect(read.type).toBe(type)
    }
    const k1 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' })
    expect(
      (await convertKey({ key: k1.publicKey.export({ type: 'spki', format: 'pem' }) as string })).curve,
    ).toBe('secp256k1')
    const dsa = generateKeyPairSync('dsa' as 'rsa', { modulusLength: 1024 })
    await expect(
      convertKey({ key: dsa.publicKey.export({ type: 'spki', format: 'pem' }) as string }),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_KEY_MATERIAL', details: { key_type: 'dsa' } })
  })
})

describe('private JWKs', () => {
  it("refuses public members that are not the private key's, which OpenSSL alone would ignore", async () => {
    for (const type of ['ed25519', 'x25519'] as const) {
      const a = generateKeyPairSync(type as 'ed25519').privateKey.export({ format: 'jwk' })
      const b = generateKeyPairSync(type as 'ed25519').privateKey.export({ format: 'jwk' })
      await expect(convertKey({ key: { ...a, x: b.x } })).rejects.toMatchObject({
        code: 'ERR_INVALID_KEY_MATERIAL',
        details: { member: 'x' },
      })
    }
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' })
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' })
    await expect(convertKey({ key: { ...ec, x: other.x, y: other.y } })).rejects.toMatchObject({
      code: 'ERR_INVALID_KEY_MATERIAL',
    })
  })
})

describe('key pairs', () => {
  it.each([
    [{ type: 'ed25519' as const }, { type: 'ed25519' }, 'OKP'],
    [{ type: 'x25519' as const }, { type: 'x25519' }, 'OKP'],
    [{ type: 'ec' as const }, { type: 'ec', curve: 'P-256' }, 'EC'],
    [{ type: 'ec' as const, curve: 'P-521' as const }, { type: 'ec', curve: 'P-521' }, 'EC'],
    [{ type: 'rsa' as const }, { type: 'rsa', bits: 2048 }, 'RSA'],
  ])('%j: both halves in both forms, consistent, and their thumbprint', async (input, described, kty) => {
    const pair = await generateKeypair(input, { [RSA_BITS_CAP]: 2048 })
    expect(pair).toMatchObject(described)
    expect(pair.private_key.pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/)
    expect(pair.public_key.pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/)
    expect(pair.private_key.jwk.kty).toBe(kty)
    expect(Object.keys(pair.private_key.jwk)[0]).toBe('kty')
    const read = await convertKey({ key: pair.private_key.pem })
    expect(read.private_key).toEqual(pair.private_key)
    expect(read.public_key).toEqual(pair.public_key)
    expect(read.thumbprint).toBe(pair.thumbprint)
    expect(pair.thumbprint_uri).toBe(`urn:ietf:params:oauth:jwk-thumbprint:sha-256:${pair.thumbprint}`)
  })

  it('an RSA modulus at the plan cap, and one byte past it refused with the cap named', async () => {
    const caps = { [RSA_BITS_CAP]: 2048 }
    expect((await generateKeypair({ type: 'rsa', bits: 2048 }, caps)).bits).toBe(2048)
    await expect(generateKeypair({ type: 'rsa', bits: 2056 }, caps)).rejects.toMatchObject({
      code: 'ERR_PLAN_CAP',
      details: { cap: 'crypto_rsa_max_bits', max: 2048, requested: 2056 },
    })
  })

  it('refuses options of another type', async () => {
    await expect(generateKeypair({ type: 'ed25519', bits: 2048 }, {})).rejects.toMatchObject({
      code: 'ERR_VALIDATION',
    })
    await expect(generateKeypair({ type: 'rsa', curve: 'P-256' }, {})).rejects.toMatchObject({
      code: 'ERR_VALIDATION',
    })
  })

  it('thumbprints in SHA-384 and SHA-512, with RFC 9278 URIs', async () => {
    const t = await thumbprintKey({ key: RFC7638_KEY, hash: 'sha512' })
    expect(t.thumbprint).toHaveLength(86)
    expect(t.thumbprint_uri).toBe(`urn:ietf:params:oauth:jwk-thumbprint:sha-512:${t.thumbprint}`)
    expect((await thumbprintKey({ key: RFC7638_KEY, hash: 'sha384' })).thumbprint).toHaveLength(64)
  })
})
