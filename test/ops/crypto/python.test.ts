import { expect, it } from 'vitest'
import { convertKey } from '../../../src/ops/crypto/convert.ts'
import { generateKeypair, RSA_BITS_CAP } from '../../../src/ops/crypto/keypair.ts'
import { describePython, runPython } from '../../helpers/python-oracle.ts'

// The crypto family against Python's cryptography: Python reads the PEM made here and gives the numbers
// of the key, which must be the JWK's members, and the RFC 7638 thumbprint it computes from them; Python
// makes keys in its PEM forms (PKCS#8, PKCS#1/"traditional", SEC1, SPKI) and the JWK read here from them
// must hold its numbers.
const READ = `
import base64, hashlib, json, sys
from cryptography.hazmat.primitives import serialization as s
from cryptography.hazmat.primitives.asymmetric import rsa, ec, ed25519, x25519

def b64(n, size=None):
    if isinstance(n, int):
        size = size or max(1, (n.bit_length() + 7) // 8)
        n = n.to_bytes(size, 'big')
    return base64.urlsafe_b64encode(n).rstrip(b'=').decode()

def raw(k):
    return k.public_bytes(s.Encoding.Raw, s.PublicFormat.Raw)

CURVES = {'secp256r1': ('P-256', 32), 'secp384r1': ('P-384', 48), 'secp521r1': ('P-521', 66)}

def jwk_of(private, public):
    if isinstance(public, rsa.RSAPublicKey):
        n = public.public_numbers()
        out = {'kty': 'RSA', 'n': b64(n.n), 'e': b64(n.e)}
        if private:
            p = private.private_numbers()
            out.update(d=b64(p.d), p=b64(p.p), q=b64(p.q),
                       dp=b64(p.dmp1), dq=b64(p.dmq1), qi=b64(p.iqmp))
        return out
    if isinstance(public, ec.EllipticCurvePublicKey):
        crv, size = CURVES[public.curve.name]
        n = public.public_numbers()
        out = {'kty': 'EC', 'crv': crv, 'x': b64(n.x, size), 'y': b64(n.y, size)}
        if private:
            out['d'] = b64(private.private_numbers().private_value, size)
        return out
    crv = 'Ed25519' if isinstance(public, ed25519.Ed25519PublicKey) else 'X25519'
    out = {'kty': 'OKP', 'crv': crv, 'x': b64(raw(public))}
    if private:
        out['d'] = b64(private.private_bytes(s.Encoding.Raw, s.PrivateFormat.Raw, s.NoEncryption()))
    return out

def thumb(jwk):
    required = {'RSA': ['e', 'kty', 'n'], 'EC': ['crv', 'kty', 'x', 'y'], 'OKP': ['crv', 'kty', 'x']}[jwk['kty']]
    text = json.dumps({k: jwk[k] for k in required}, separators=(',', ':'), sort_keys=True)
    return b64(hashlib.sha256(text.encode()).digest())

cases = json.load(sys.stdin)
out = {'read': [], 'made': []}
for c in cases['ours']:
    private = s.load_pem_private_key(c['private'].encode(), None)
    public = s.load_pem_public_key(c['public'].encode())
    jwk = jwk_of(private, public)
    out['read'].append({'private': jwk, 'public': jwk_of(None, public), 'thumbprint': thumb(jwk)})
for kind in cases['theirs']:
    if kind.startswith('rsa'):
        k = rsa.generate_private_key(65537, int(kind[3:]))
        fmt = s.PrivateFormat.TraditionalOpenSSL
    elif kind.startswith('ec'):
        k = ec.generate_private_key({'ec256': ec.SECP256R1(), 'ec384': ec.SECP384R1(), 'ec521': ec.SECP521R1()}[kind])
        fmt = s.PrivateFormat.TraditionalOpenSSL
    elif kind == 'ed25519':
        k = ed25519.Ed25519PrivateKey.generate(); fmt = s.PrivateFormat.PKCS8
    else:
        k = x25519.X25519PrivateKey.generate(); fmt = s.PrivateFormat.PKCS8
    pem = k.private_bytes(s.Encoding.PEM, fmt, s.NoEncryption()).decode()
    pub = k.public_key().public_bytes(s.Encoding.PEM, s.PublicFormat.SubjectPublicKeyInfo).decode()
    jwk = jwk_of(k, k.public_key())
    out['made'].append({'pem': pem, 'public_pem': pub, 'jwk': jwk, 'thumbprint': thumb(jwk)})
print(json.dumps(out))
`

describePython('key pairs against Python (cryptography)', ['cryptography'], () => {
  it('Python reads the pairs made here as the JWKs say; the pairs Python makes convert to its numbers', async () => {
    const inputs = [
      { type: 'rsa' as const },
      { type: 'rsa' as const, bits: 3072 },
      { type: 'ec' as const },
      { type: 'ec' as const, curve: 'P-384' as const },
      { type: 'ec' as const, curve: 'P-521' as const },
      { type: 'ed25519' as const },
      { type: 'x25519' as const },
    ]
    const ours = await Promise.all(inputs.map((i) => generateKeypair(i, { [RSA_BITS_CAP]: 4096 })))
    const theirs = ['rsa2048', 'rsa4096', 'ec256', 'ec384', 'ec521', 'ed25519', 'x25519']
    const result = runPython<{
      read: { private: Record<string, string>; public: Record<string, string>; thumbprint: string }[]
      made: { pem: string; public_pem: string; jwk: Record<string, string>; thumbprint: string }[]
    }>(READ, { ours: ours.map((p) => ({ private: p.private_key.pem, public: p.public_key.pem })), theirs })
    ours.forEach((pair, i) => {
      const read = result.read[i]!
      expect(pair.private_key.jwk, JSON.stringify(inputs[i])).toEqual(read.private)
      expect(pair.public_key.jwk).toEqual(read.public)
      expect(pair.thumbprint).toBe(read.thumbprint)
    })
    for (const made of result.made) {
      const fromPrivate = await convertKey({ key: made.pem })
      expect(fromPrivate.private_key!.jwk).toEqual(made.jwk)
      expect(fromPrivate.thumbprint).toBe(made.thumbprint)
      const fromPublic = await convertKey({ key: made.public_pem })
      expect(fromPublic.public_key).toEqual(fromPrivate.public_key)
    }
  }, 60_000)
})
