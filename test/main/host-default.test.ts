import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { connect } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { envSchema } from '../../src/config.ts'
import { startServerProcess } from '../helpers/server-process.ts'

const ROOT = new URL('../../', import.meta.url).pathname

function reaches(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 3_000 })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
    socket.once('timeout', () => {
      socket.destroy()
      resolve(false)
    })
  })
}

// Issue 43: HOST defaulted to 0.0.0.0, which put a development gateway's console sign-up on the LAN.
describe('where the API listener listens by default', () => {
  let dataDir: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-host-'))
  })
  afterAll(() => rm(dataDir, { recursive: true, force: true }))

  it('loopback outside a container; the image sets every interface itself', () => {
    expect(envSchema.parse({}).HOST).toBe('127.0.0.1')
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^\s+HOST=0\.0\.0\.0 \\$/m)
  })

  it('a gateway started without HOST answers on loopback and on no other address of the machine', async () => {
    const server = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', HOST: undefined })
    try {
      const port = Number(new URL(server.url).port)
      expect(server.output()).toContain(`listening on https://127.0.0.1:${port} `)
      expect(await reaches('127.0.0.1', port)).toBe(true)
      const others = Object.values(networkInterfaces())
        .flat()
        .filter((i) => i !== undefined && !i.internal && i.family === 'IPv4')
        .map((i) => i!.address)
      for (const address of others) expect(await reaches(address, port), address).toBe(false)
    } finally {
      expect(await server.stop()).toBe(0)
    }
  }, 60_000)
})
