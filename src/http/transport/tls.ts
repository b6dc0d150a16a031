import { execFile } from 'node:child_process'
import { createPrivateKey, X509Certificate } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
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

const run = promisify(execFile)

// A self-signed certificate for localhost, made by a process of its own (self-signed.ts says why).
async function makeSelfSigned(notAfter: Date): Promise<{ cert: string; key: string }> {
  const script = fileURLToPath(new URL('./self-signed.ts', import.meta.url))
  try {
    const { stdout } = await run(process.execPath, [script, notAfter.toISOString()], { maxBuffer: 1 << 20 })
    return JSON.parse(stdout.trimEnd().split('\n').at(-1)!) as { cert: string; key: string }
  } catch (err) {
    throw new StartupError(
      `Could not make a self-signed certificate (${(err as Error).message.split('\n')[0]}). ` +
        'Set TLS_CERT_FILE and TLS_KEY_FILE to a certificate of your own.',
    )
  }
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
  const pems = await makeSelfSigned(notAfter)
  await writeAtomic(keyPath, pems.key)
  await writeAtomic(certPath, pems.cert)
  return {
    cert: pems.cert,
    key: pems.key,
    selfSigned: true,
    fingerprint: new X509Certificate(pems.cert).fingerprint256,
  }
}
