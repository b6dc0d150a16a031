import { mkdtemp, readFile, rm } from 'node:fs/promises'
import http from 'node:http'
import http2 from 'node:http2'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts'
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts'

// Issue 36 item 3: 40 requests with a 60 KB `Accept: a/b,a/b,…` held the event loop for 1.3-2 s of another
// workspace's request, where the same bytes in another header cost ≤ 30 ms; any header the gateway parses
// could do the same. Each header here is sent at the largest size each protocol lets through (Node: 16 KiB
// of headers in all over HTTP/1.1, a 64 KiB header list over HTTP/2) in the shape that costs its parser the
// most, 16 requests at once, and what the gateway's event loop spends on them is compared with the same
// requests carrying the same bytes in a header nothing reads: parsing may add less than a millisecond a
// request (unbounded, Accept added 2-8 ms, Accept-Encoding 1-5 ms, X-Forwarded-For 5-21 ms). Measured as
// the CPU time of the gateway's main thread (/proc/<pid>/task/<pid>/schedstat), the least of 3 bursts: a
// loaded machine does not inflate it as it does wall time. The other headers' parsers are linear and cheap
// at these sizes (their bounds are tested at the bound and one past it in hooks/header-bounds.tls.test.ts).

const REQUESTS = 16
const ROUNDS = 3
const H1_VALUE = 15 * 1024
const H2_VALUE = 63 * 1024
const UNTHROTTLED = JSON.stringify({
  business: { key_rate_per_second: 1e6, workspace_rate_per_second: 1e6 },
})

interface Case {
  header: string
  method: 'GET' | 'POST'
  path: string
  body?: string
  // the listener: the internal one is plain HTTP/1.1
  admin?: boolean
  // a value of `length` characters in the costliest shape for its parser (the i-th request of a burst),
  // and an ordinary one
  large(length: number, i: number): string
  small: string
  // headers the case needs besides
  extra?: Record<string, string>
}

const repeat = (unit: string, length: number) => unit.repeat(Math.floor(length / unit.length))
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'

const CASES: Case[] = [
  {
    header: 'accept',
    method: 'POST',
    path: '/v1/hash/sha256',
    body: '{"input":"x"}',
    large: (n) => repeat('a/b,', n),
    small: 'application/json',
  },
  {
    header: 'accept-encoding',
    method: 'POST',
    path: '/v1/base64/encode',
    body: JSON.stringify({ input: 'x'.repeat(2_000) }),
    large: (n) => `gzip${repeat(';', n - 4)}`,
    small: 'gzip, br',
  },
  {
    header: 'content-type',
    method: 'POST',
    path: '/v1/hash/sha256',
    body: '{"input":"x"}',
    // Fastify keeps the last 100 parsed values: each request's is its own
    large: (n, i) => `application/json;i=${String(i).padStart(3, '0')};${repeat('a=b;', n - 23)}`,
    small: 'application/json',
  },
  {
    header: 'authorization',
    method: 'POST',
    path: '/v1/hash/sha256',
    body: '{"input":"x"}',
    large: (n) => `Bearer x${repeat('x', n - 10)} y`,
    small: 'Bearer anvil_live_000000000000000000000000000000000000',
  },
  {
    header: 'cookie',
    method: 'GET',
    path: '/console/api/session',
    large: (n) => repeat('a=b;', n),
    small: 'a=b',
  },
  {
    header: 'idempotency-key',
    method: 'POST',
    path: '/v1/jobs',
    body: JSON.stringify({ operation: 'hash', params: { algorithm: 'sha256', input: 'x' } }),
    large: (n) => repeat('k', n),
    small: 'k-1',
  },
  {
    header: 'tracestate',
    method: 'POST',
    path: '/v1/hash/sha256',
    body: '{"input":"x"}',
    large: (n) => repeat('k=v,', n),
    small: 'k=v',
    extra: { traceparent: TRACEPARENT },
  },
  {
    header: 'traceparent',
    method: 'POST',
    path: '/v1/hash/sha256',
    body: '{"input":"x"}',
    large: (n) => `${TRACEPARENT}-${repeat('a', n - TRACEPARENT.length - 1)}`,
    small: TRACEPARENT,
  },
  {
    header: 'x-forwarded-for',
    method: 'POST',
    path: '/v1/hash/sha256',
    body: '{"input":"x"}',
    large: (n) => `${repeat('10.0.0.1,', n - 10)}10.0.0.2`,
    small: '10.0.0.2',
  },
  {
    header: 'request-id',
    method: 'POST',
    path: '/v1/hash/sha256',
    body: '{"input":"x"}',
    large: (n) => repeat('r', n),
    small: 'req-12345678',
  },
  {
    header: 'referer',
    method: 'POST',
    path: '/console/api/signin',
    body: '{"email":"a@example.com","password":"x"}',
    large: (n) => `https://127.0.0.1/${repeat('p', n - 18)}`,
    small: 'https://127.0.0.1/console/',
  },
  {
    header: 'x-csrf-token',
    method: 'POST',
    path: '/console/api/signout',
    body: '{}',
    large: (n) => repeat('t', n),
    small: 't',
  },
  { header: 'host', method: 'GET', path: '/metrics', admin: true, large: (n) => repeat('h', n), small: '' },
]

// CPU time of the process's main thread (its event loop), in ms
async function loopCpuMs(pid: number): Promise<number> {
  const [onCpuNs] = (await readFile(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')).split(' ')
  return Number(onCpuNs) / 1e6
}

describe('no request header stalls the event loop at the largest size HTTP/1.1 and HTTP/2 allow', () => {
  let server: ServerProcess
  let dataDir: string
  let otlp: OtlpReceiver
  let key: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-header-stall-'))
    otlp = await startOtlpReceiver()
    server = await startServerProcess({
      DATA_DIR: dataDir,
      DEFAULT_PLAN: 'business',
      PLANS: UNTHROTTLED,
      LOG_LEVEL: 'warn',
      // every hop trusted from loopback: X-Forwarded-For is walked as far as it goes
      TRUST_PROXY: '127.0.0.0/8,10.0.0.0/8',
      // tracing on: traceparent and tracestate are read
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    })
    key = server.firstKey!
  }, 60_000)
  afterAll(async () => {
    for (const agent of agents.values()) agent.destroy()
    await server?.stop()
    await otlp?.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  // the case's header with `value`; or, with `filler`, its ordinary value and `value` in a header nothing reads
  function headersFor(c: Case, value: string, filler: boolean): Record<string, string> {
    const headers: Record<string, string> = { ...c.extra }
    if (filler) {
      headers['x-filler'] = value
      value = c.small
    }
    if (!c.admin) headers.authorization = `Bearer ${key}`
    if (c.body !== undefined) headers['content-type'] = 'application/json'
    if (c.path.startsWith('/console/')) headers.origin = 'https://127.0.0.1'
    if (value !== '' || c.header !== 'host') headers[c.header] = value
    return headers
  }

  // HTTP/1.1: REQUESTS connections, kept alive across bursts (a TLS handshake each would be most of what is
  // measured), one request on each at once; answered with any status
  const agents = new Map<string, http.Agent>()
  function agentFor(c: Case): http.Agent {
    const name = c.admin ? 'admin' : 'public'
    let agent = agents.get(name)
    if (!agent) {
      const options = { keepAlive: true, maxSockets: REQUESTS }
      agent = c.admin ? new http.Agent(options) : new https.Agent({ ...options, ca: server.ca })
      agents.set(name, agent)
    }
    return agent
  }
  function burstH1(c: Case, values: string[], filler: boolean): Promise<number[]> {
    const base = new URL(c.admin ? server.adminUrl : server.url)
    const send = c.admin ? http.request : https.request
    return Promise.all(
      values.map(
        (value) =>
          new Promise<number>((resolve, reject) => {
            const r = send({
              method: c.method,
              host: base.hostname,
              port: base.port,
              path: c.path,
              headers: headersFor(c, value, filler),
              agent: agentFor(c),
            })
            r.on('response', (res) => {
              res.resume()
              res.on('end', () => resolve(res.statusCode ?? 0))
            })
            r.on('error', reject)
            r.end(c.body)
          }),
      ),
    )
  }

  // HTTP/2: one session, every request a stream of it, all at once
  async function burstH2(c: Case, values: string[], filler: boolean): Promise<number[]> {
    const session = http2.connect(server.url, { ca: server.ca })
    try {
      return await Promise.all(
        values.map(
          (value) =>
            new Promise<number>((resolve, reject) => {
              const stream = session.request({
                ':method': c.method,
                ':path': c.path,
                ...headersFor(c, value, filler),
              })
              let status = 0
              stream.on('response', (h) => {
                status = Number(h[':status'])
              })
              stream.on('close', () =>
                status ? resolve(status) : reject(new Error(`no answer: ${stream.rstCode}`)),
              )
              stream.on('error', () => {})
              stream.resume()
              stream.end(c.body)
            }),
        ),
      )
    } finally {
      session.close()
    }
  }

  // the event loop's CPU time a request of a burst, the least of ROUNDS bursts (what else the machine does
  // only ever adds)
  async function loopMsPerRequest(
    burst: () => Promise<number[]>,
  ): Promise<{ ms: number; statuses: number[] }> {
    const pid = server.child.pid!
    let best = Number.POSITIVE_INFINITY
    let statuses: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const before = await loopCpuMs(pid)
      statuses = await burst()
      best = Math.min(best, ((await loopCpuMs(pid)) - before) / REQUESTS)
    }
    return { ms: best, statuses }
  }

  for (const c of CASES) {
    for (const protocol of c.admin ? (['HTTP/1.1'] as const) : (['HTTP/1.1', 'HTTP/2'] as const)) {
      const size = protocol === 'HTTP/1.1' ? H1_VALUE : H2_VALUE
      it(`${c.header}: ${size / 1024} KiB over ${protocol}`, async () => {
        const burst = protocol === 'HTTP/1.1' ? burstH1 : burstH2
        const values = Array.from({ length: REQUESTS }, (_, i) => c.large(size, i))
        for (const value of values) expect(value.length).toBeGreaterThan(size - 64)
        // warm: the route's code paths, the connections, the JIT
        await burst(c, values, true)
        await burst(c, values, false)
        const unread = await loopMsPerRequest(() => burst(c, values, true))
        const read = await loopMsPerRequest(() => burst(c, values, false))
        expect(
          read.statuses.every((s) => s > 0 && s < 500),
          String(read.statuses),
        ).toBe(true)
        expect(
          read.ms - unread.ms,
          `${read.ms.toFixed(2)} ms a request, ${unread.ms.toFixed(2)} with the bytes in a header nothing reads`,
        ).toBeLessThan(1)
      }, 60_000)
    }
  }
})
