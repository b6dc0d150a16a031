import { createPrivateKey, X509Certificate } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { writeAtomic } from '../../lib/atomic-file.ts'
import { StartupError } from '../../lib/startup-error.ts'

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

async function readOperatorFile(path: string, variable: string): Promise<string> {
  return readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new StartupError(`${variable}: cannot read ${path} (${err.code ?? err.message}).`)
  })
}

// The certificate's fingerprint, once both PEMs are known to parse: a damaged one stops the start with a
// message naming its file (`where`) and what to do, rather than a stack trace from the TLS server.
function checked(cert: string, key: string, where: { cert: string; key: string; advice: string }): string {
  let fingerprint: string
  try {
    fingerprint = new X509Certificate(cert).fingerprint256
  } catch (err) {
    throw new StartupError(
      `${where.cert} is not a PEM certificate (${(err as Error).message}). ${where.advice}`,
    )
  }
  try {
    createPrivateKey(key)
  } catch (err) {
    throw new StartupError(
      `${where.key} is not a PEM private key (${(err as Error).message}). ${where.advice}`,
    )
  }
  return fingerprint
}

// The operator's certificate, else a self-signed one for localhost made once and kept under DATA_DIR.
export async function loadTls(
  tls: { certFile: string; keyFile: string } | undefined,
  dataDir: string,
): Promise<TlsMaterial> {
  if (tls) {
    const [cert, key] = await Promise.all([
      readOperatorFile(tls.certFile, 'TLS_CERT_FILE'),
      readOperatorFile(tls.keyFile, 'TLS_KEY_FILE'),
    ])
    checked(cert, key, {
      cert: `TLS_CERT_FILE ${tls.certFile}`,
      key: `TLS_KEY_FILE ${tls.keyFile}`,
      advice: 'Point the variable at the PEM file.',
    })
    return { cert, key, selfSigned: false }
  }
  const certPath = selfSignedCertPath(dataDir)
  const keyPath = join(dataDir, 'tls', 'key.pem')
  const [cert, key] = await Promise.all([readIfExists(certPath), readIfExists(keyPath)])
  if (cert && key) {
    const advice =
      `Delete ${dirname(certPath)} to have a new self-signed certificate made at the next start (clients ` +
      'that trust the old one must then fetch the new one).'
    const fingerprint = checked(cert, key, { cert: certPath, key: keyPath, advice })
    return { cert, key, selfSigned: true, fingerprint }
  }
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
