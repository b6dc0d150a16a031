import { readFileSync } from 'node:fs'
import { request } from 'node:https'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Gateway, type Running, startGateway, startNode } from '../../bench/lib/processes.ts'

// The small-hash bench's servers answer what the gateway answers, so that their CPU per request is the cost
// of the same answer: the floor (key check and the contract's headers) and the contract floor (plus
// validation, limits, metrics and the access line: bench/baselines/floor-contract.ts).
describe('the small-hash baselines answer as the gateway does', () => {
  let gateway: Gateway
  const servers: Record<string, Running> = {}
  let ca: Buffer

  beforeAll(async () => {
    gateway = await startGateway({ LOG_LEVEL: 'info' })
    const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
    ca = readFileSync(join(dataDir, 'tls', 'cert.pem'))
    const env = {
      TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'),
      TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem'),
      API_KEY: gateway.key,
    }
    for (const name of ['floor', 'floor-contract'])
      servers[name] = await startNode(`bench/baselines/${name}.ts`, env, /READY (https:\/\/\S+)/)
  }, 60_000)

  afterAll(async () => {
    await Promise.all([gateway?.stop(), ...Object.values(servers).map((s) => s.stop())])
  })

  async function post(url: string, body: string, key = gateway.key) {
    return new Promise<{ status: number; headers: Record<string, unknown>; json: unknown }>(
      (resolve, reject) => {
        const req = request(
          `${url}/v1/hash/sha256`,
          {
            method: 'POST',
            ca,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          },
          (res) => {
            let text = ''
            res.setEncoding('utf8')
            res.on('data', (c) => (text += c))
            res.on('end', () =>
              resolve({ status: res.statusCode!, headers: res.headers, json: JSON.parse(text) }),
            )
          },
        )
        req.on('error', reject)
        req.end(body)
      },
    )
  }

  it('the same data and the three /v1 headers; the contract floor refuses what the gateway refuses', async () => {
    const body = JSON.stringify({ input: 'hello world' })
    const ours = await post(gateway.url, body)
    expect(ours.status).toBe(200)
    for (const [name, server] of Object.entries(servers)) {
      const theirs = await post(server.url, body)
      expect(theirs.status, name).toBe(200)
      expect(theirs.json, name).toEqual(ours.json)
      for (const header of ['request-id', 'ratelimit-policy', 'ratelimit'])
        expect(theirs.headers[header], `${name} ${header}`).toBeTypeOf('string')
    }
    const contract = servers['floor-contract']!
    expect((await post(contract.url, body, 'ak_wrong')).status).toBe(401)
    expect((await post(contract.url, JSON.stringify({ input: 'x', extra: 1 }))).status).toBe(400)
    expect((await post(contract.url, JSON.stringify({ input: 1 }))).status).toBe(400)
    // its rates count down as the gateway's do
    const first = String((await post(contract.url, body)).headers.ratelimit)
    const second = String((await post(contract.url, body)).headers.ratelimit)
    expect(first).toMatch(/^"second";r=\d+;t=1, "workspace-second";r=\d+;t=1, "month";r=\d+;t=\d+$/)
    expect(Number(/"month";r=(\d+)/.exec(second)![1])).toBe(Number(/"month";r=(\d+)/.exec(first)![1]) - 1)
  }, 60_000)
})
