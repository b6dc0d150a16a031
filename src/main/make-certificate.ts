import { mkdir } from 'node:fs/promises'
import { ConfigError, loadConfig } from '../config.ts'
import { loadTls, selfSignedCertPath } from '../http/transport/tls.ts'

// `node src/main/make-certificate.ts`: makes the self-signed certificate in DATA_DIR unless one is there,
// says which, and exits. For a DATA_DIR that several gateways share (docker-compose.yml's gateway-data
// volume): run once before they start, it makes every replica present one certificate, the one the
// console offers for download, where each used to make its own on an empty directory. With
// TLS_CERT_FILE/TLS_KEY_FILE set there is nothing to make.
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`)
      process.exit(1)
    }
    throw err
  }
  if (config.tls) {
    process.stdout.write(`certificate: ${config.tls.certFile} (TLS_CERT_FILE): nothing to make\n`)
    return
  }
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 })
  const tls = await loadTls(undefined, config.dataDir)
  process.stdout.write(
    `certificate: self-signed, ${selfSignedCertPath(config.dataDir)} (${tls.fingerprint})\n`,
  )
}

await main()
