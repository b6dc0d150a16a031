import http2 from 'node:http2'
import https from 'node:https'
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatJson } from '../../../src/ops/json/format/format.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { repeated } from '../../helpers/stream-client.ts'

const MiB = 1024 * 1024

// 2 MiB of JSON records without the array's end; the end, sent once the answer has passed its first MiB,
// is `,]` (invalid: the formatter finds it after the 200 went out) or `]`
const record = '{\n    "id": 12345678901234567890,\n    "name": "caf\\u00e9"\n  }'
const unit = Buffer.from(`${record},\n  `)
const minified = Buffer.from(formatJson({ input: record, mode: 'minify' }).output)
const prefix = Buffer.concat([
  ...repeated(Buffer.from('[\n  '), unit, Math.ceil((2 * MiB) / minified.length), Buffer.from(record)),
])

interface Answer {
  status: number
  bytes: number
  complete: boolean
}

type Sender = (t: TestApp, whenStarted: () => Promise<void> | void, tail: Buffer) => Promise<Answer>

// a raw body answered raw (Accept: application/octet-stream), streamed both ways: `whenStarted` runs once
// a MiB of the answer has arrived, then `tail` ends the body
const overHttp1: Sender = (t, whenStarted, tail) =>
  new Promise((resolve, reject) => {
    const req = https.request(`${t.url}/v1/json/format?mode=minify`, {
      method: 'POST',
      ca: t.tls!.cert,
      agent: false,
      headers: {
        authorization: `Bearer ${t.key}`,
        'content-type': 'application/octet-stream',
        accept: 'application/octet-stream',
      },
    })
    let started = false
    req.on('response', (res) => {
      let bytes = 0
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length
        if (!started && bytes >= MiB) {
          started = true
          void Promise.resolve(whenStarted()).then(() => req.end(tail))
        }
      })
      res.on('error', () => {})
      res.on('close', () => resolve({ status: res.statusCode ?? 0, bytes, complete: res.complete }))
    })
    req.on('error', (err) => {
      if (!started) reject(err)
    })
    req.write(prefix)
  })

const overHttp2: Sender = (t, whenStarted, tail) =>
  new Promise((resolve) => {
    const session = http2.connect(t.url, { ca: t.tls!.cert })
    session.on('error', () => {})
    const req = session.request({
      ':method': 'POST',
      ':path': '/v1/json/format?mode=minify',
      authorization: `Bearer ${t.key}`,
      'content-type': 'application/octet-stream',
      accept: 'application/octet-stream',
    })
    let status = 0
    let bytes = 0
    let ended = false
    let started = false
    req.on('response', (h) => {
      status = Number(h[':status'])
    })
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length
      if (!started && bytes >= MiB) {
        started = true
        void Promise.resolve(whenStarted()).then(() => req.end(tail))
      }
    })
    req.on('end', () => {
      ended = true
    })
    req.on('error', () => {})
    req.on('close', () => {
      resolve({ status, bytes, complete: ended && req.rstCode === http2.constants.NGHTTP2_NO_ERROR })
      session.close()
    })
    req.write(prefix)
  })

// Issue 36 item 4: a streamed json/format that failed after its 200 was logged as ERR_HTTP_HEADERS_SENT
// ("Reply was already sent"), and was either counted as a 5xx or not at all (Fastify runs no onResponse for
// a response that never finished). Now: logged once as a cut answer, counted in a metric of its own and
// never as a 5xx, charged when the input caused it, refunded once when the gateway did.
describe('an answer that fails after it started', () => {
  let t: TestApp
  const lines: Record<string, unknown>[] = []
  beforeAll(async () => {
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString().split('\n').filter(Boolean))
          lines.push(JSON.parse(line) as Record<string, unknown>)
        callback()
      },
    })
    t = await startTestApp({ listen: true, logStream })
  })
  afterAll(() => t?.close())

  const metric = async (pattern: RegExp) => {
    const text = await t.runtime.metrics.registry.metrics()
    return text
      .split('\n')
      .filter((l) => pattern.test(l))
      .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0)
  }
  const requests = async () => (await t.runtime.store.usage(t.workspaceId)).workspace.requests
  // the lane's last steps run right after the cut; a refund is one store call later
  const settled = () => new Promise((r) => setTimeout(r, 200))

  for (const [protocol, send] of [
    ['HTTP/1.1', overHttp1],
    ['HTTP/2', overHttp2],
  ] as const) {
    it(`${protocol}: invalid input found late is one log line and one cut, charged, never a 5xx`, async () => {
      lines.length = 0
      const cutBefore = await metric(
        /^anvil_http_answers_cut_total\{route="\/v1\/json\/format",code="ERR_INVALID_JSON"\}/,
      )
      const charged = await requests()
      const answer = await send(t, () => {}, Buffer.from(',]'))
      await settled()
      expect(answer).toMatchObject({ status: 200, complete: false })
      expect(answer.bytes).toBeGreaterThanOrEqual(MiB)
      const cutLines = lines.filter((l) => /answer cut off after it started/.test(String(l.msg)))
      expect(cutLines).toHaveLength(1)
      expect(cutLines[0]).toMatchObject({ level: 30, code: 'ERR_INVALID_JSON' })
      // nothing else about it: no "request failed", no "Reply was already sent", no headers-sent error
      expect(lines.filter((l) => (l.level as number) >= 40)).toEqual([])
      expect(JSON.stringify(lines)).not.toMatch(/ERR_HTTP_HEADERS_SENT|already sent|request failed/)
      expect(lines.filter((l) => l.msg === 'request completed')).toMatchObject([
        { res: { statusCode: 200 }, cut: 'ERR_INVALID_JSON' },
      ])
      expect(
        await metric(/^anvil_http_answers_cut_total\{route="\/v1\/json\/format",code="ERR_INVALID_JSON"\}/),
      ).toBe(cutBefore + 1)
      expect(await metric(/^anvil_http_requests_total\{route="\/v1\/json\/format".*status_class="5xx"/)).toBe(
        0,
      )
      expect(await metric(/^anvil_charge_refunds_total/)).toBe(0)
      expect(await requests()).toBe(charged + 1)
    })
  }

  it('HTTP/1.1: the gateway losing its thread mid-answer is one error line and one cut, refunded once', async () => {
    lines.length = 0
    const charged = await requests()
    const refunds = await metric(/^anvil_charge_refunds_total/)
    const answer = await overHttp1(
      t,
      async () => {
        // the thread formatting this answer dies (a crash of the gateway's own, not the input's)
        const pool = t.runtime.pools.pick(t.workspaceId, 'paid').piscina
        await Promise.all(pool.threads.map((thread) => thread.terminate()))
      },
      Buffer.from(']'),
    )
    await settled()
    expect(answer).toMatchObject({ status: 200, complete: false })
    const cutLines = lines.filter((l) => /answer cut off after it started/.test(String(l.msg)))
    expect(cutLines).toHaveLength(1)
    expect(cutLines[0]).toMatchObject({ level: 50, code: 'ERR_INTERNAL' })
    expect(
      await metric(/^anvil_http_answers_cut_total\{route="\/v1\/json\/format",code="ERR_INTERNAL"\}/),
    ).toBe(1)
    expect(await metric(/^anvil_http_requests_total\{route="\/v1\/json\/format".*status_class="5xx"/)).toBe(0)
    expect(await metric(/^anvil_charge_refunds_total/)).toBe(refunds + 1)
    expect(await requests()).toBe(charged)
  })
})
