import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

describe('/v1/url', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp()
  })
  afterAll(() => t.close())

  it('parses a URL into the envelope', async () => {
    const res = await t.post('/v1/url/parse', { url: '/p?a=1&a=2#h', base: 'https://example.com/x' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      ok: true,
      data: {
        href: 'https://example.com/p?a=1&a=2#h',
        origin: 'https://example.com',
        protocol: 'https:',
        username: '',
        password: '',
        host: 'example.com',
        hostname: 'example.com',
        port: '',
        pathname: '/p',
        search: '?a=1&a=2',
        hash: '#h',
        query: [
          ['a', '1'],
          ['a', '2'],
        ],
        query_object: { a: ['1', '2'] },
      },
    })
  })

  it('answers 400 ERR_INVALID_URL with what it can locate', async () => {
    const res = await t.post('/v1/url/parse', { url: 'https://exa mple.com/' })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({
      type: 'invalid_request',
      code: 'ERR_INVALID_URL',
      details: {
        field: 'url',
        input: 'https://exa mple.com/',
        reason: 'forbidden_host_code_point',
        position: 11,
      },
    })
    const base = await t.post('/v1/url/parse', { url: 'x', base: 'relative/base' })
    expect(base.json().error.details).toEqual({
      field: 'base',
      input: 'x',
      base: 'relative/base',
      reason: 'invalid_base',
    })
  })

  it('sends query names "__proto__" and "constructor" as ordinary keys', async () => {
    const res = await t.post('/v1/url/parse', { url: 'http://a/?__proto__=x&constructor=y&__proto__=z' })
    expect(res.body).toContain('"query_object":{"__proto__":["x","z"],"constructor":"y"}')
  })

  it('builds a URL and refuses a bad component by name', async () => {
    const ok = await t.post('/v1/url/build', {
      protocol: 'https',
      hostname: 'example.com',
      pathname: '/search',
      query: { q: 'anvil api', page: 2 },
    })
    expect(ok.statusCode).toBe(200)
    expect(ok.json().data.href).toBe('https://example.com/search?q=anvil+api&page=2')
    const bad = await t.post('/v1/url/build', { protocol: 'https', hostname: 'example.com:8080' })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().error).toMatchObject({
      code: 'ERR_INVALID_URL',
      details: { field: 'hostname', position: 11 },
    })
  })

  it('modifies a URL', async () => {
    const res = await t.post('/v1/url/modify', {
      url: 'https://example.com/a?utm_source=x&b=2&a=1#top',
      set: { pathname: '/b' },
      query: { delete: ['utm_source'], append: { c: true } },
      sort_query: true,
      strip_hash: true,
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.href).toBe('https://example.com/b?a=1&b=2&c=true')
    const bad = await t.post('/v1/url/modify', { url: 'https://a/', set: { href: '//no-scheme' } })
    expect(bad.json().error).toMatchObject({ code: 'ERR_INVALID_URL', details: { field: 'set.href' } })
  })

  it('parses and builds query strings', async () => {
    const parsed = await t.post('/v1/url/query/parse', { query: '?a=1&b=%C3%A9+x&a=2' })
    expect(parsed.json().data).toEqual({
      pairs: [
        ['a', '1'],
        ['b', 'é x'],
        ['a', '2'],
      ],
      object: { a: ['1', '2'], b: 'é x' },
    })
    const built = await t.post('/v1/url/query/build', {
      params: [
        ['b', 'é x'],
        ['a', null],
      ],
    })
    expect(built.json()).toEqual({ ok: true, data: { query: 'b=%C3%A9+x&a=' } })
  })

  it('round-trips "__proto__" and "constructor" keys without touching Object.prototype', async () => {
    const res = await t.post('/v1/url/query/build', '{"params":{"__proto__":"1","constructor":["2","3"]}}')
    expect(res.json()).toEqual({ ok: true, data: { query: '__proto__=1&constructor=2&constructor=3' } })
    const mod = await t.post(
      '/v1/url/modify',
      '{"url":"http://a/","query":{"set":{"__proto__":"p"},"append":{"constructor":"c"}}}',
    )
    expect(mod.json().data.search).toBe('?__proto__=p&constructor=c')
    const polluting = await t.post('/v1/url/query/build', '{"params":{"__proto__":{"polluted":"yes"}}}')
    expect(polluting.statusCode).toBe(400)
    expect(polluting.json().error.details.issues).toEqual([
      { path: 'params.__proto__', message: expect.any(String) },
    ])
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })

  it('refuses schema violations with ERR_VALIDATION and their paths', async () => {
    const cases: [string, unknown, string[]][] = [
      ['/v1/url/parse', { url: 1 }, ['url']],
      ['/v1/url/parse', { url: 'http://a', extra: 1 }, ['extra']],
      ['/v1/url/build', { hostname: 'a' }, ['protocol']],
      ['/v1/url/modify', { url: 'http://a', set: { origin: 'x' } }, ['set.origin']],
      ['/v1/url/modify', { url: 'http://a', query: { delete: 'a' } }, ['query.delete']],
      ['/v1/url/query/parse', { query: ['a'] }, ['query']],
      ['/v1/url/query/build', { params: { a: [[1]] } }, ['params.a.0']],
      ['/v1/url/query/build', {}, ['params']],
    ]
    for (const [path, body, paths] of cases) {
      const res = await t.post(path, body)
      expect(res.statusCode, path).toBe(400)
      const error = res.json().error
      expect(error.code).toBe('ERR_VALIDATION')
      expect(error.details.issues.map((i: { path: string }) => i.path)).toEqual(paths)
    }
  })

  it('needs an API key', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/url/parse',
      headers: { 'content-type': 'application/json' },
      payload: { url: 'http://a' },
    })
    expect(res.statusCode).toBe(401)
    expect(res.json().error.code).toBe('ERR_MISSING_API_KEY')
  })
})
