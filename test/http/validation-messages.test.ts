import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/harness.ts'
import { tenant } from './console/fixtures.ts'

interface Refusal {
  code: string
  message: string
  details: { issues: { path: string; message: string }[] }
}

// Issue 43: every schema failure said "The request body does not match the schema.", a query-string one
// too (the console showed that sentence); a list of bad CIDR blocks repeated one message without the
// values; "A environment with this name exists.".
describe('what a refusal of the input says', () => {
  let t: TestApp
  const key = () => ({ authorization: `Bearer ${t.key}` })
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, host: '127.0.0.1' }
  beforeAll(async () => {
    t = await startTestApp()
  })
  afterAll(() => t.close())

  const refusal = (r: { statusCode: number; json: () => unknown }): Refusal => {
    expect(r.statusCode).toBe(400)
    return (r.json() as { error: Refusal }).error
  }

  it('names the part of the request and its first issue: query string, path, body', async () => {
    const query = refusal(await t.app.inject({ method: 'GET', url: '/v1/jobs?limit=1000', headers: key() }))
    expect(query.message).toBe('Invalid "limit" in the query string: Too big: expected number to be <=100.')
    expect(query.details.issues[0]!.path).toBe('query.limit')

    const path = refusal(
      await t.app.inject({
        method: 'POST',
        url: `/v1/hash/${'a'.repeat(65)}`,
        headers: { ...key(), 'content-type': 'application/json' },
        payload: '{"input":"x"}',
      }),
    )
    expect(path.message).toBe(
      'Invalid "algorithm" in the path: Too big: expected string to have <=64 characters.',
    )

    const body = refusal(await t.post('/v1/hash/sha256', { input: 5 }))
    expect(body.message).toBe('Invalid "input" in the body: Invalid input: expected string, received number.')
    const missing = refusal(await t.post('/v1/hash/sha256', {}))
    expect(missing.message).toBe('Missing required field "input" in the body (a string).')
    expect(missing.details.issues[0]!.message).toBe('Missing required field "input" (a string).')
    const unknown = refusal(await t.post('/v1/hash/sha256', { input: 'x', outptu_encoding: 'hex' }))
    expect(unknown.message).toBe(
      'Unknown field "outptu_encoding" in the body (did you mean "output_encoding"?).',
    )
    // the admin listener's queries too
    const page = refusal(
      await t.admin.inject({ method: 'GET', url: '/admin/workspaces?limit=0', headers: admin }),
    )
    expect(page.message).toMatch(/^Invalid "limit" in the query string: Too small/)
  })

  it('a refusal an operation throws without a message says its first issue', async () => {
    const sign = refusal(
      await t.post('/v1/jwt/sign', {
        payload: {},
        algorithm: 'HS256',
        secret: 'x'.repeat(32),
        expires_in: 'forever',
      }),
    )
    expect(sign.message).toBe(
      'Invalid "expires_in": must be seconds or a span like "90s", "15m", "2h", "7d", "1y" (at most 100 years).',
    )
    expect(sign.message).not.toMatch(/does not match the schema/)
  })

  it('each bad CIDR block is named by its value', async () => {
    const r = refusal(
      await t.admin.inject({
        method: 'POST',
        url: '/admin/keys',
        headers: { ...admin, 'content-type': 'application/json' },
        payload: JSON.stringify({ workspace_id: t.workspaceId, allowed_cidrs: ['10.0.0.0/33', 'nope'] }),
      }),
    )
    expect(r.details.issues).toEqual([
      {
        path: 'allowed_cidrs.0',
        message: '"10.0.0.0/33" is not an IPv4/IPv6 address or CIDR block (e.g. 10.0.0.0/8)',
      },
      {
        path: 'allowed_cidrs.1',
        message: '"nope" is not an IPv4/IPv6 address or CIDR block (e.g. 10.0.0.0/8)',
      },
    ])
    expect(r.message).toBe(
      'Invalid "allowed_cidrs.0" in the body: "10.0.0.0/33" is not an IPv4/IPv6 address or CIDR block (e.g. 10.0.0.0/8).',
    )
  })

  it('a name taken in the console is refused in English', async () => {
    const me = await tenant(t.app, 'grammar@example.com')
    const projects = `/console/api/workspaces/${me.workspaceId}/projects`
    const project = (await me.client.call('POST', projects, { name: 'Site' })).json().data as { id: string }
    expect((await me.client.call('POST', projects, { name: 'Site' })).json().error.message).toBe(
      'A project with this name exists.',
    )
    const envs = `${projects}/${project.id}/environments`
    expect((await me.client.call('POST', envs, { name: 'qa', mode: 'test' })).statusCode).toBe(200)
    const taken = (await me.client.call('POST', envs, { name: 'qa', mode: 'test' })).json().error
    expect(taken.message).toBe('An environment with this name exists.')
    expect(taken.details.issues[0].message).toBe('an environment with this name exists')
  })
})
