import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../../helpers/harness.ts'
import { h1Request, h2Request, type RawResponse } from '../../helpers/tls-client.ts'
import { editedList } from '../../ops/json/diff/large-helpers.ts'

interface Refusal {
  error: {
    code: string
    message: string
    details: { issues: { path: string; message: string; did_you_mean?: string }[] }
  }
}

// Unknown fields are refused, never dropped: over real sockets, on every surface (API, admin, console),
// whether the body is validated on the event loop or on a worker thread, and for job inputs.
describe('strict input: an unknown field is a 400 that names it', () => {
  let t: TestApp
  let ca: string
  let adminUrl: string
  beforeAll(async () => {
    t = await startTestApp({ listen: true })
    ca = t.tls!.cert
    await t.admin.listen({ port: 0, host: '127.0.0.1' })
    adminUrl = `http://127.0.0.1:${(t.admin.server.address() as AddressInfo).port}`
  })
  afterAll(() => t?.close())

  const headers = (extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${t.key}`,
    'content-type': 'application/json',
    ...extra,
  })
  const post = (path: string, body: unknown, h2 = false) =>
    (h2 ? h2Request : h1Request)(t.url, {
      method: 'POST',
      path,
      headers: headers(),
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ca,
    })
  const refusal = (res: RawResponse) => {
    expect(res.status).toBe(400)
    const body = res.json<Refusal>()
    expect(body.error.code).toBe('ERR_VALIDATION')
    return body.error
  }
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })

  it('the typo from the issue: outptu_encoding is refused, with output_encoding suggested (HTTP/1.1, HTTP/2)', async () => {
    for (const h2 of [false, true]) {
      const error = refusal(await post('/v1/hash/sha256', '{"input":"x","outptu_encoding":"base64"}', h2))
      expect(error.message).toBe(
        'Unknown field "outptu_encoding" in the body (did you mean "output_encoding"?).',
      )
      expect(error.details.issues).toEqual([
        {
          path: 'outptu_encoding',
          message: 'Unknown field "outptu_encoding". Did you mean "output_encoding"?',
          did_you_mean: 'output_encoding',
        },
      ])
    }
    // the same body without the typo is fine
    expect((await post('/v1/hash/sha256', { input: 'x', output_encoding: 'base64' })).status).toBe(200)
  })

  it('a field with nothing close is named without a guess; each unknown field is its own issue', async () => {
    const error = refusal(await post('/v1/id/uuid', { version: 7, colour: 'blue', cuont: 2 }))
    expect(error.details.issues).toEqual([
      { path: 'colour', message: 'Unknown field "colour".' },
      { path: 'cuont', message: 'Unknown field "cuont". Did you mean "count"?', did_you_mean: 'count' },
    ])
    expect(error.message).toBe('Unknown field "colour" in the body.')
  })

  it('nested objects are strict too, and the path says where', async () => {
    const error = refusal(
      await post('/v1/url/modify', { url: 'https://example.com/', set: { hots: 'example.org' } }),
    )
    expect(error.details.issues[0]).toMatchObject({ path: 'set.hots', did_you_mean: 'host' })
    expect(error.message).toBe('Unknown field "hots" in the body at set.hots (did you mean "host"?).')
  })

  it('an unknown query parameter is refused, on routes with query options and on routes without', async () => {
    const withOptions = refusal(await post('/v1/hash/sha256?output_encodng=base64', { input: 'x' }))
    expect(withOptions.details.issues).toEqual([
      expect.objectContaining({ path: 'query.output_encodng', did_you_mean: 'output_encoding' }),
    ])
    expect(withOptions.message).toBe(
      'Unknown field "output_encodng" in the query string (did you mean "output_encoding"?).',
    )
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'
    const without = refusal(await post('/v1/jwt/decode?verbose=1', { token }))
    expect(without.details.issues).toEqual([{ path: 'query.verbose', message: 'Unknown field "verbose".' }])
    const get = await h1Request(t.url, { path: '/v1/hash/algorithms?secure=true', headers: headers(), ca })
    expect(refusal(get).details.issues[0]!.path).toBe('query.secure')
    // a health probe keeps answering whatever a load balancer appends
    expect((await h1Request(t.url, { path: '/healthz?probe=lb', ca })).status).toBe(200)
  })

  it('admin API: unknown fields in a body and in a nested overrides object', async () => {
    let res = await admin('POST', '/admin/keys', { workspace_id: t.workspaceId, familes: ['hash'] })
    expect(res.status).toBe(400)
    let body = (await res.json()) as Refusal
    expect(body.error.code).toBe('ERR_VALIDATION')
    expect(body.error.details.issues).toEqual([
      expect.objectContaining({ path: 'familes', did_you_mean: 'families' }),
    ])
    res = await admin('PATCH', `/admin/workspaces/${t.workspaceId}`, { overrides: { monthly_qouta: 5 } })
    body = (await res.json()) as Refusal
    expect(res.status).toBe(400)
    expect(body.error.details.issues).toEqual([
      expect.objectContaining({ path: 'overrides.monthly_qouta', did_you_mean: 'monthly_quota' }),
    ])
    res = await admin('GET', `/admin/keys?workspace_id=${t.workspaceId}&limt=5`)
    expect(res.status).toBe(400)
    expect(((await res.json()) as Refusal).error.details.issues[0]!.path).toBe('query.limt')
  })

  it('console API: sign-up with a mistyped field', async () => {
    const res = await h1Request(t.url, {
      method: 'POST',
      path: '/console/api/signup',
      headers: { 'content-type': 'application/json', origin: t.url },
      body: JSON.stringify({
        email: 'strict@example.com',
        password: 'a long enough password',
        workspace_nmae: 'W',
      }),
      ca,
    })
    const error = refusal(res)
    expect(error.details.issues).toEqual([
      expect.objectContaining({ path: 'workspace_nmae', did_you_mean: 'workspace_name' }),
    ])
  })

  it('a large body validated on a worker thread is just as strict, with the same details', async () => {
    const list = editedList(2_000, 3)
    const valid = await post('/v1/json/diff', { left: list.left, right: list.right })
    expect(valid.status).toBe(200)
    // the proof that this size goes to the pool unparsed: the pool says so in Server-Timing
    expect(valid.headers['server-timing']).toMatch(/^dispatch;desc="(paid|free)"/)
    const body = JSON.stringify({ left: list.left, right: list.right, array_kye: 'id' })
    expect(body.length).toBeGreaterThan(16 * 1024)
    const error = refusal(await post('/v1/json/diff', body))
    expect(error.message).toBe('Unknown field "array_kye" in the body (did you mean "array_key"?).')
    expect(error.details.issues).toEqual([
      {
        path: 'array_kye',
        message: 'Unknown field "array_kye". Did you mean "array_key"?',
        did_you_mean: 'array_key',
      },
    ])
  })

  it('job inputs: unknown fields at the top and in params, small and large bodies', async () => {
    let error = refusal(
      await post('/v1/jobs', {
        operation: 'hash',
        params: { algorithm: 'sha256', input: 'x', outptu_encoding: 'base64' },
      }),
    )
    expect(error.details.issues).toEqual([
      expect.objectContaining({ path: 'params.outptu_encoding', did_you_mean: 'output_encoding' }),
    ])
    error = refusal(
      await post('/v1/jobs', { operation: 'hash', params: { algorithm: 'md5', input: 'x' }, priorty: 1 }),
    )
    expect(error.details.issues).toEqual([{ path: 'priorty', message: 'Unknown field "priorty".' }])
    // above the size checked on the event loop, the job body is read on a worker: the same answer
    const list = editedList(4_000, 3)
    const big = JSON.stringify({
      operation: 'json.diff',
      params: { left: list.left, right: list.right, ouput: 'both' },
    })
    expect(big.length).toBeGreaterThan(64 * 1024)
    error = refusal(await post('/v1/jobs', big))
    expect(error.details.issues).toEqual([
      expect.objectContaining({ path: 'params.ouput', did_you_mean: 'output' }),
    ])
  })
})
