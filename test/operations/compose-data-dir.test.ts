import { execFile } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from 'node:tls'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts'
import { h1Request } from '../helpers/tls-client.ts'
import { ROOT } from './dashboards.ts'

const run = promisify(execFile)

interface Service {
  image?: string
  command?: string[]
  volumes?: string[]
  depends_on?: Record<string, { condition: string }>
  environment?: Record<string, string>
}
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>
  volumes: Record<string, unknown>
}
const dockerDataDir = /^\s+DATA_DIR=(\S+) \\$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1]

// the certificate a TLS listener presents, by its SHA-256 fingerprint
function presented(url: string): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false }, () => {
      resolve(socket.getPeerX509Certificate()!.fingerprint256)
      socket.end()
    })
    socket.on('error', reject)
  })
}

// Issue 43: the compose gateways had no data volume, so each replica made its own self-signed certificate
// and the console's downloadable certificate fitted one of them. Checked without a Docker engine: the
// file's structure, and what it relies on run for real (the one-shot command, two gateways on one DATA_DIR).
describe('docker-compose.yml: the gateways share one DATA_DIR and one certificate', () => {
  it("every replica mounts one named volume at the image's DATA_DIR, which a one-shot service prepares first", () => {
    expect(dockerDataDir).toBe('/data')
    const gateway = compose.services.gateway!
    const certificate = compose.services.certificate!
    const volume = `gateway-data:${dockerDataDir}`
    expect(gateway.volumes).toContain(volume)
    expect(certificate.volumes).toEqual([volume])
    expect(Object.keys(compose.volumes)).toContain('gateway-data')
    expect(certificate.image).toBe(gateway.image)
    expect(certificate.command).toEqual(['node', 'src/main/make-certificate.ts'])
    expect(gateway.depends_on?.certificate).toEqual({ condition: 'service_completed_successfully' })
  })

  it('the one-shot command makes the certificate once and keeps it after', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'anvil-cert-'))
    try {
      const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir }
      const first = await run(process.execPath, compose.services.certificate!.command!.slice(1), {
        cwd: ROOT,
        env,
      })
      const made = new X509Certificate(await readFile(join(dataDir, 'tls', 'cert.pem'))).fingerprint256
      expect(first.stdout).toBe(`certificate: self-signed, ${dataDir}/tls/cert.pem (${made})\n`)
      const second = await run(process.execPath, ['src/main/make-certificate.ts'], { cwd: ROOT, env })
      expect(second.stdout).toBe(first.stdout)
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
})

describeRedis('two gateways on Redis sharing a prepared DATA_DIR present one certificate', () => {
  let redis: RedisServer
  let dataDir: string
  const gateways: ServerProcess[] = []
  beforeAll(async () => {
    redis = await startRedis()
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-shared-'))
  })
  afterAll(async () => {
    for (const g of gateways) await g.stop()
    await redis?.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('both present the certificate the one-shot service made, and offer it for download', async () => {
    await run(process.execPath, ['src/main/make-certificate.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
    })
    const pem = await readFile(join(dataDir, 'tls', 'cert.pem'), 'utf8')
    const fingerprint = new X509Certificate(pem).fingerprint256
    // as compose starts them: together, on Redis, no bootstrap, the admin token from the environment
    const env = {
      DATA_DIR: dataDir,
      REDIS_URL: redis.url,
      BOOTSTRAP: 'false',
      ADMIN_TOKEN: 'compose-data-dir-test-token-0123456789',
      LOG_LEVEL: 'warn',
    }
    gateways.push(...(await Promise.all([startServerProcess(env), startServerProcess(env)])))
    for (const g of gateways) {
      expect(await presented(g.url)).toBe(fingerprint)
      const download = await h1Request(g.url, { path: '/console/certificate.pem', ca: pem })
      expect(download.status).toBe(200)
      expect(download.body.toString('utf8')).toBe(pem)
    }
  }, 90_000)
})
