import { X509Certificate } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { writeAtomic } from '../../lib/atomic-file.ts'

export interface TlsMaterial {
  key: string
  cert: string
  selfSigned: boolean
  fingerprint?: string
}

async function readIfExists(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined
    throw err
  })
}

export function selfSignedCertPath(dataDir: string): string {
  return join(dataDir, 'tls', 'cert.pem')
}

// The operator's certificate, else a self-signed one for localhost made once and kept under DATA_DIR.
export async function loadTls(
  tls: { certFile: string; keyFile: string } | undefined,
  dataDir: string,
): Promise<TlsMaterial> {
  if (tls) {
    const [cert, key] = await Promise.all([readFile(tls.certFile, 'utf8'), readFile(tls.keyFile, 'utf8')])
    return { cert, key, selfSigned: false }
  }
  const certPath = selfSignedCertPath(dataDir)
  const keyPath = join(dataDir, 'tls', 'key.pem')
  const [cert, key] = await Promise.all([readIfExists(certPath), readIfExists(keyPath)])
  if (cert && key)
    return { cert, key, selfSigned: true, fingerprint: new X509Certificate(cert).fingerprint256 }
  const notAfter = new Date()
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + 2)
  // loaded only here, on a first start: selfsigned brings an X.509 and ASN.1 toolkit (~700 KB of source,
  // several MiB of memory) that a gateway with its certificate never needs again
  const { generate } = await import('selfsigned')
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: notAfter,
    extensions: [
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  })
  await writeAtomic(keyPath, pems.private)
  await writeAtomic(certPath, pems.cert)
  return {
    cert: pems.cert,
    key: pems.private,
    selfSigned: true,
    fingerprint: new X509Certificate(pems.cert).fingerprint256,
  }
}
