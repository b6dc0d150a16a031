import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../helpers/harness.ts'

// The access line is written by hand (src/observability/access-log.ts): it must stay valid JSON in pino's
// shape, one line per answered request, and carry nothing from the request's headers or body.
describe('access log', () => {
  const lines: string[] = []
  let t: TestApp
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(...chunk.toString().split('\n').filter(Boolean))
        callback()
      },
    })
    t = await startTestApp({ logStream: stream })
  })
  afterAll(() => t.close())

  function accessLines(): Record<string, unknown>[] {
    return lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request completed')
  }

  it('writes one pino-shaped JSON line per request, with the request id, route pattern, status and workspace', async () => {
    lines.length = 0
    const ok = await t.post(
      '/v1/hash/sha256',
      { input: 'a secret-looking input' },
      { 'request-id': 'trace.abc:123-x' },
    )
    const missing = await t.app.inject({ method: 'GET', url: '/v1/nope' })
    expect(ok.statusCode).toBe(200)
    expect(missing.statusCode).toBe(404)
    const [first, second] = accessLines()
    expect(accessLines()).toHaveLength(2)
    // pino-http's shape, which log pipelines parse as is
    expect(first).toMatchObject({
      level: 30,
      pid: process.pid,
      req: { id: 'trace.abc:123-x', method: 'POST', url: '/v1/hash/:algorithm' },
      res: { statusCode: 200 },
      workspace: t.workspaceId,
      msg: 'request completed',
    })
    expect(Object.keys(first!)).toEqual([
      'level',
      'time',
      'pid',
      'hostname',
      'req',
      'res',
      'responseTime',
      'workspace',
      'msg',
    ])
    expect(typeof first!.time).toBe('number')
    expect(typeof first!.responseTime).toBe('number')
    expect(first!.responseTime).toBeGreaterThan(0)
    expect(typeof first!.hostname).toBe('string')
    expect(second).toMatchObject({
      req: { id: missing.headers['request-id'], url: 'unmatched' },
      res: { statusCode: 404 },
    })
    expect(second).not.toHaveProperty('workspace')
    const all = lines.join('\n')
    expect(all).not.toContain(t.key)
    expect(all).not.toContain('secret-looking')
  })

  it('labels an unknown HTTP method as OTHER rather than echoing it', async () => {
    lines.length = 0
    await t.app.inject({ method: 'PROPFIND' as 'GET', url: '/v1/hash/sha256' })
    expect(accessLines()[0]).toMatchObject({ req: { method: 'OTHER' } })
  })

  it('writes nothing when the level is above info', async () => {
    const quiet: string[] = []
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        quiet.push(chunk.toString())
        callback()
      },
    })
    const q = await startTestApp({ logStream: stream, env: { LOG_LEVEL: 'warn' } })
    try {
      await q.post('/v1/hash/sha256', { input: 'x' })
      expect(quiet.join('')).not.toContain('"msg":"request completed"')
    } finally {
      await q.close()
    }
  })
})
