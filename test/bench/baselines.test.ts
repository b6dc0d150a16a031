import { readFileSync } from 'node:fs'
import { request } from 'node:https'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Gateway,
  type Running,
  startGateway,
  startGatewayWithContractFloor,
  startNode,
} from '../../bench/lib/processes.ts'
import { describeRedis, startRedis } from '../helpers/redis-server.ts'

// The bench's floors answer what the gateway answers, so that their time or CPU per request is the cost of
// the same answer: small-hash's floor (key check and the contract's headers) and contract floor (plus
// validation, limits, metrics and the access line: bench/baselines/floor-contract.ts), and
// json-format-input's two floors for the {input} form (the whole body parsed; the input unescaped and
// minified on a thread as it streams), and the diff floor of first-request and json-diff (the diff on a
// bare server's event loop).
describe('the bench baselines answer as the gateway does', () => {
  let gateway: Gateway
  const servers: Record<string, Running> = {}
  let ca: Buffer
  const inputFloors: Record<string, Running> = {}
  let diffFloor: Running
  let floorEnv: Record<string, string>

  beforeAll(async () => {
    gateway = await startGateway({ LOG_LEVEL: 'info' })
    const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
    ca = readFileSync(join(dataDir, 'tls', 'cert.pem'))
    const env = {
      TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'),
      TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem'),
      API_KEY: gateway.key,
    }
    floorEnv = env
    for (const name of ['floor', 'floor-contract'])
      servers[name] = await startNode(`bench/baselines/${name}.ts`, env, /READY (https:\/\/\S+)/)
    // json-format-input's floors; the streaming one in batches of 7 bytes, so that escapes, \u escapes and
    // UTF-8 sequences are split between batches
    for (const name of ['bare-input-minify', 'stream-input-minify'])
      inputFloors[name] = await startNode(
        `bench/baselines/${name}.ts`,
        { ...env, STREAM_INPUT_BATCH: '7' },
        /READY (https:\/\/\S+)/,
      )
    diffFloor = await startNode('bench/baselines/bare-diff.ts', env, /READY (https:\/\/\S+)/)
  }, 60_000)

  afterAll(async () => {
    await Promise.all(
      [gateway, diffFloor, ...Object.values(servers), ...Object.values(inputFloors)].map((s) => s?.stop()),
    )
  })

  async function post(
    url: string,
    body: string,
    key = gateway.key,
    path = '/v1/hash/sha256',
    authority = ca,
  ) {
    return new Promise<{ status: number; headers: Record<string, unknown>; json: unknown }>(
      (resolve, reject) => {
        const req = request(
          `${url}${path}`,
          {
            method: 'POST',
            ca: authority,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          },
          (res) => {
            let text = ''
            res.setEncoding('utf8')
            res.on('data', (c) => (text += c))
            res.on('end', () =>
              // a floor's 500 has no body: its status is the failure to report, not a parse error
              resolve({
                status: res.statusCode!,
                headers: res.headers,
                json: text ? JSON.parse(text) : undefined,
              }),
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

  // small-hash's process that is both: the contract floor on a port of its own beside a running gateway
  it("the contract floor in a gateway's process answers as the gateway beside it, on that gateway's key", async () => {
    const shared = await startGatewayWithContractFloor({ LOG_LEVEL: 'info', POOL_WARM: 'false' })
    try {
      const dataDir = /data dir:\s+(\S+)/.exec(shared.output())![1]!
      const itsCa = readFileSync(join(dataDir, 'tls', 'cert.pem'))
      expect(shared.floorUrl).not.toBe(shared.url)
      const body = JSON.stringify({ input: 'hello world' })
      const ours = await post(shared.url, body, shared.key, undefined, itsCa)
      const theirs = await post(shared.floorUrl, body, shared.key, undefined, itsCa)
      expect(ours.status).toBe(200)
      expect(theirs.status).toBe(200)
      expect(theirs.json).toEqual(ours.json)
      expect((await post(shared.floorUrl, body, gateway.key, undefined, itsCa)).status).toBe(401)
    } finally {
      await shared.stop()
    }
  }, 60_000)

  it("json-format-input's floors answer the gateway's envelope for the bench's {input} body", async () => {
    // pretty JSON with non-ASCII, escapes, and numbers a parse would lose (1.0, -0, a 20-digit integer)
    const document = JSON.stringify(
      { items: [{ name: 'caf\u00e9 \u{1f600}', path: 'a\\b/"c"', n: ['ONE', 'MINUS_ZERO', 'BIG'] }] },
      null,
      2,
    )
      .replace('"ONE"', '1.0')
      .replace('"MINUS_ZERO"', '-0')
      .replace('"BIG"', '12345678901234567890')
    // the gateway's body, and the same with \u escapes (a surrogate pair among them) and an escaped solidus,
    // each shifted by 0-6 spaces of leading whitespace: every escape falls across every batch boundary
    const bodies = [0, 1, 2, 3, 4, 5, 6].flatMap((shift) => {
      const plain = JSON.stringify({ input: ' '.repeat(shift) + document, mode: 'minify' })
      const escaped = plain
        .replace('\u00e9', '\\u00e9')
        .replace('\u{1f600}', '\\ud83d\\ude00')
        .replace('/', '\\/')
      expect(JSON.parse(escaped)).toEqual(JSON.parse(plain))
      return [plain, escaped]
    })
    const ours = await post(gateway.url, bodies[0]!, gateway.key, '/v1/json/format')
    expect(ours.status).toBe(200)
    expect((ours.json as { data: { output: string } }).data.output).toContain('[1.0,-0,12345678901234567890]')
    for (const [name, server] of Object.entries(inputFloors)) {
      for (const body of bodies) {
        const theirs = await post(server.url, body)
        expect(theirs.status, name).toBe(200)
        expect(theirs.json, name).toEqual(ours.json)
      }
    }
  }, 60_000)

  it("first-request's diff floor answers the gateway's diff", async () => {
    // numbers a parse would lose, written as text: 1.0, a 20-digit integer changed in its last digit
    const body =
      '{"left":{"items":[{"id":1,"price":1.0},{"id":2,"price":12345678901234567890}]},' +
      '"right":{"items":[{"id":2,"price":12345678901234567891},{"id":3,"price":-0}]},' +
      '"array_key":"id","output":"both"}'
    const ours = await post(gateway.url, body, gateway.key, '/v1/json/diff')
    expect(ours.status).toBe(200)
    expect((ours.json as { data: { stats: unknown } }).data.stats).toEqual({
      added: 1,
      removed: 1,
      changed: 1,
      moved: 0,
    })
    const theirs = await post(diffFloor.url, body)
    expect(theirs.status).toBe(200)
    expect(theirs.json).toEqual(ours.json)
  }, 60_000)
  // small-hash-redis's contract floor: the same, its limits decided on Redis by the gateway's consume.lua
  describeRedis('on Redis', () => {
    // a floor on a redis-server of its own, and a client of that server
    async function onOwnRedis(script: string, env: Record<string, string> = {}) {
      const redis = await startRedis()
      const server = await startNode(
        `bench/baselines/${script}.ts`,
        { ...floorEnv, REDIS_URL: redis.url, ...env },
        /READY (https:\/\/\S+)/,
      ).catch(async (err) => {
        await redis.stop()
        throw err
      })
      return { redis, server, client: new Redis(redis.url) }
    }
    it('the contract floor on Redis answers as the gateway does, its limits decided in Redis', async () => {
      const { redis, server: onRedis, client } = await onOwnRedis('floor-contract')
      try {
        const body = JSON.stringify({ input: 'hello world' })
        const ours = await post(gateway.url, body)
        const first = await post(onRedis.url, body)
        expect(first.status).toBe(200)
        expect(first.json).toEqual(ours.json)
        const second = await post(onRedis.url, body)
        const rates = String(second.headers.ratelimit)
        expect(rates).toMatch(/^"second";r=\d+;t=\d+, "workspace-second";r=\d+;t=\d+, "month";r=\d+;t=\d+$/)
        const month = (h: string) => Number(/"month";r=(\d+)/.exec(h)![1])
        expect(month(rates)).toBe(month(String(first.headers.ratelimit)) - 1)
        // the month's count is Redis's: two requests charged there
        const usage = await client.keys('floor:*usage*')
        expect(usage.length).toBeGreaterThan(0)
        const counts = await Promise.all(usage.map((k) => client.hgetall(k)))
        expect(JSON.stringify(counts)).toMatch(/"2"/)
        expect((await post(onRedis.url, body, 'ak_wrong')).status).toBe(401)
        expect((await post(onRedis.url, JSON.stringify({ input: 1 }))).status).toBe(400)
      } finally {
        client.disconnect()
        await onRedis.stop()
        await redis.stop()
      }
    }, 60_000)
    // issue 41's floors: the decision a one-line script ('oneline'), and a script that reads and writes what
    // a run's exact decision must, deciding nothing ('io'); a turn's decisions one call
    it.each([
      ['oneline', { n: '2' }],
      ['io', { requests: '2', 'k:key_floor:requests': '2', 'd:01': '2' }],
    ])(
      'the Redis floor with FLOOR_SCRIPT=%s answers as the gateway does and moves its hash in Redis',
      async (mode, moved) => {
        const { redis, server: floor, client } = await onOwnRedis('floor-redis', { FLOOR_SCRIPT: mode })
        try {
          const body = JSON.stringify({ input: 'hello world' })
          const ours = await post(gateway.url, body)
          for (let i = 0; i < 2; i++) {
            const theirs = await post(floor.url, body)
            expect(theirs.status).toBe(200)
            expect(theirs.json).toEqual(ours.json)
            expect(String(theirs.headers.ratelimit)).toMatch(
              /^"second";r=\d+;t=\d+, "workspace-second";r=\d+;t=\d+, "month";r=\d+;t=\d+$/,
            )
          }
          const hash = await client.hgetall('floor:{ws_floor}:n')
          expect(hash).toMatchObject(moved)
          if (mode === 'io') {
            // the two TATs written are Redis's clock, ms
            expect(Math.abs(Number(hash.tw) - Date.now())).toBeLessThan(60_000)
            expect(Number(hash['tk:key_floor'])).toBe(Number(hash.tw))
          }
          expect((await post(floor.url, body, 'ak_wrong')).status).toBe(401)
        } finally {
          client.disconnect()
          await floor.stop()
          await redis.stop()
        }
      },
      60_000,
    )
  })
})
