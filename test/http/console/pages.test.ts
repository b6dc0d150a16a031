import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { curlExample } from '../../../src/http/console/curl.ts'
import { escapeHtml, html } from '../../../src/http/console/pages/html.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { ConsoleClient } from './console-client.ts'
import { type Tenant, tenant } from './fixtures.ts'

const XSS = `<script>alert("x")</script>'"&`

// Every form control is labelled: by <label for>, by a wrapping <label>, or by aria-label.
function unlabelledControls(page: string): string[] {
  const wrapped = [...page.matchAll(/<label[^>]*>\s*<input\b[^>]*>/g)].map((m) => m[0])
  const bad: string[] = []
  for (const [tag] of page.matchAll(/<(input|select|textarea)\b[^>]*>/g)) {
    if (/type="(hidden|submit)"/.test(tag) || /aria-label="[^"]+"/.test(tag)) continue
    const id = /\bid="([^"]+)"/.exec(tag)?.[1]
    if (id && page.includes(`<label for="${id}"`)) continue
    if (wrapped.some((w) => w.endsWith(tag))) continue
    bad.push(tag)
  }
  return bad
}

function expectStrictPage(res: { headers: Record<string, unknown>; body: string; statusCode: number }) {
  expect(res.statusCode).toBe(200)
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
  const csp = String(res.headers['content-security-policy'])
  expect(csp).toContain("script-src 'self'")
  expect(csp).toContain("frame-ancestors 'none'")
  expect(csp).not.toContain('unsafe-inline')
  expect(res.headers['x-content-type-options']).toBe('nosniff')
  expect(res.headers['x-frame-options']).toBe('DENY')
  expect(res.headers['strict-transport-security']).toBe('max-age=63072000')
  expect(res.headers['cache-control']).toBe('no-store')
  // nothing inline for the CSP to refuse: scripts come from files, no handlers, no style attributes
  for (const [tag] of res.body.matchAll(/<script\b[^>]*>/g)) expect(tag).toMatch(/ src="\/console\/assets\//)
  expect(res.body).not.toMatch(/\son[a-z]+="/i)
  expect(res.body).not.toMatch(/\sstyle="/)
  expect(res.body).not.toContain('<style')
  expect(res.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">')
  expect(unlabelledControls(res.body)).toEqual([])
}

describe('console pages', () => {
  let t: TestApp
  let me: Tenant

  beforeAll(async () => {
    t = await startTestApp()
    me = await tenant(t.app, 'pages@example.com')
    await me.client.call('POST', '/console/api/workspaces', { name: XSS })
    await me.client.call('POST', `/console/api/workspaces/${me.workspaceId}/projects`, { name: XSS })
  })
  afterAll(() => t.close())

  it('signed out: /console leads to sign-in, which links to sign-up; both are strict, labelled pages', async () => {
    const anon = new ConsoleClient(t.app)
    const home = await anon.call('GET', '/console')
    expect(home.statusCode).toBe(303)
    expect(home.headers.location).toBe('/console/sign-in')
    const signIn = await anon.call('GET', '/console/sign-in')
    expectStrictPage(signIn)
    expect(signIn.body).toContain('data-api="/console/api/signin"')
    expect(signIn.body).toContain('href="/console/sign-up"')
    expect(signIn.body).not.toContain('csrf-token')
    const signUp = await anon.call('GET', '/console/sign-up')
    expectStrictPage(signUp)
    expect(signUp.body).toContain('autocomplete="new-password"')
    expect(signUp.body).toContain('minlength="10"')
  })

  it('after sign-in, only console paths are followed (no open redirect)', async () => {
    const anon = new ConsoleClient(t.app)
    const page = await anon.call(
      'GET',
      `/console/sign-in?next=${encodeURIComponent('/console/workspaces/ws_1/keys')}`,
    )
    expect(page.body).toContain('data-success="redirect:/console/workspaces/ws_1/keys"')
    for (const next of [
      '//evil.example',
      'https://evil.example/console',
      '/console/../v1',
      '/console/x"onmouseover',
    ]) {
      const res = await anon.call('GET', `/console/sign-in?next=${encodeURIComponent(next)}`)
      expect(res.body).toContain('data-success="redirect:/console/workspaces"')
    }
    // signed in, the sign-in and sign-up pages send you on
    const signedIn = await me.client.call('GET', '/console/sign-in')
    expect(signedIn.statusCode).toBe(303)
    expect(signedIn.headers.location).toBe('/console/workspaces')
    expect((await me.client.call('GET', '/console/sign-up')).headers.location).toBe('/console/workspaces')
  })

  it('signed-in pages carry the CSRF token and escape everything people typed', async () => {
    const base = `/console/workspaces/${me.workspaceId}`
    for (const url of [
      '/console/workspaces',
      base,
      `${base}/keys`,
      `${base}/usage`,
      `${base}/settings`,
      '/console/account',
    ]) {
      const res = await me.client.call('GET', url)
      expectStrictPage(res)
      expect(res.body).toContain(`<meta name="csrf-token" content="${me.client.csrf}">`)
      expect(res.body).not.toContain('<script>alert')
      expect(res.body).toContain('aria-current="page"')
    }
    const list = await me.client.call('GET', '/console/workspaces')
    expect(list.body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&quot;&amp;')
    const overview = await me.client.call('GET', base)
    expect(overview.body).toContain('<h2 id="env-')
    expect(overview.body).toContain('&lt;script&gt;alert')
    // the switcher names every workspace of the person, escaped, each linking to the same section
    const keys = await me.client.call('GET', `${base}/keys`)
    const switcher = keys.body.slice(
      keys.body.indexOf('<details class="switcher">'),
      keys.body.indexOf('</details>'),
    )
    expect(switcher).toContain('&lt;script&gt;alert')
    expect([...switcher.matchAll(/href="\/console\/workspaces\/(ws_\w+)\/keys"/g)]).toHaveLength(2)
    // the header links to the API reference and to the account
    expect(keys.body).toContain('<a class="top-link" href="/docs">API docs</a>')
    expect(keys.body).toMatch(
      /<a class="top-link who" href="\/console\/account"[^>]*>pages@example\.com<\/a>/,
    )
  })

  it('the keys page lists keys by prefix and never contains a key', async () => {
    const res = await me.client.call('GET', `/console/workspaces/${me.workspaceId}/keys`)
    expect(res.body).toContain(`<code>${me.key.slice(0, 17)}…</code>`)
    expect(res.body).not.toContain(me.key)
    expect(res.body).toContain('<dialog id="key-dialog"')
    expect(res.body).toContain(`data-api="/console/api/workspaces/${me.workspaceId}/keys/${me.keyId}/revoke"`)
    expect(res.body).toContain('<option value="86400" selected>24 hours</option>')
  })

  it("the keys page shows each key's scope, and a rotation's two keys name each other", async () => {
    const ws = `/console/api/workspaces/${me.workspaceId}`
    const scoped = await me.client.call('POST', `${ws}/keys`, {
      environment_id: me.environmentId,
      name: 'scoped',
      families: ['hash', 'jwt'],
      allowed_cidrs: ['203.0.113.0/24'],
      expires_at: '2099-01-31T00:00:00Z',
    })
    expect(scoped.statusCode).toBe(200)
    const old = scoped.json().data
    // a key quota is set by an operator (admin API); the console shows it
    const quota = await t.admin.inject({
      method: 'POST',
      url: '/admin/keys',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      payload: { workspace_id: me.workspaceId, project: 'default', name: 'metered', monthly_quota: 25_000 },
    })
    expect(quota.statusCode).toBe(200)
    const rotated = await me.client.call('POST', `${ws}/keys/${old.id}/rotate`, { grace_seconds: 3600 })
    expect(rotated.statusCode).toBe(200)
    const fresh = rotated.json().data
    expect(fresh.details).toMatchObject({
      families: ['hash', 'jwt'],
      allowed_cidrs: ['203.0.113.0/24'],
      monthly_quota: null,
      rotated_from: { id: old.id, prefix: old.prefix },
      replaced_by: null,
    })
    const list = (await me.client.call('GET', `${ws}/keys`)).json().data.data as Record<string, unknown>[]
    expect(list.find((k) => k.id === old.id)).toMatchObject({
      status: 'rotated',
      replaced_by: { id: fresh.id, prefix: fresh.prefix },
      rotated_from: null,
    })
    const page = (await me.client.call('GET', `/console/workspaces/${me.workspaceId}/keys`)).body
    const row = (id: string) => new RegExp(`<tr data-key-id="${id}">[\\s\\S]*?</tr>`).exec(page)?.[0] ?? ''
    const oldRow = row(old.id)
    const newRow = row(fresh.id)
    expect(oldRow).toContain(`replaced by <code>${fresh.prefix}…</code>`)
    expect(newRow).toContain(`replaces <code>${old.prefix}…</code>`)
    for (const r of [oldRow, newRow]) {
      expect(r).toContain('<li data-scope="families">hash, jwt</li>')
      expect(r).toContain('<li data-scope="addresses">203.0.113.0/24</li>')
      expect(r).toContain(`<li data-scope="quota">No key quota</li>`)
    }
    // the replacement keeps the expiry; the old key now ends with its grace period
    expect(newRow).toMatch(/<li data-scope="expiry">Expires <time datetime="2099-01-31/)
    expect(oldRow).toMatch(/<li data-scope="expiry">Expires <time datetime="\d{4}-/)
    const main = row(me.keyId)
    expect(main).toContain('<li data-scope="families">All families</li>')
    expect(main).toContain('<li data-scope="addresses">Any address</li>')
    expect(main).toContain('<li data-scope="expiry">No expiry</li>')
    expect(main).not.toContain('data-lineage')
    expect(row(quota.json().data.id)).toContain('<li data-scope="quota">Key quota 25,000 requests/month</li>')
  })

  it('the keys page shows 50 keys at a time, newest first, with a link to the older ones', async () => {
    const other = await tenant(t.app, 'many-keys@example.com')
    const store = t.runtime.store
    const made = [other.keyId]
    for (let i = 0; i < 54; i++) {
      const key = await store.createKey({
        ...(await store.getKey(other.keyId))!,
        hash: `hash-${i}`,
        prefix: `anvil_live_${String(i).padStart(6, '0')}`,
        name: `k${i}`,
      })
      made.push(key.id)
    }
    const base = `/console/workspaces/${other.workspaceId}/keys`
    const rows = (body: string) => [...body.matchAll(/<tr data-key-id="([^"]+)">/g)].map((m) => m[1])
    const first = await other.client.call('GET', base)
    expectStrictPage(first)
    // newest first, ties in creation time by id, as every list
    const newest = (await store.pageKeys(other.workspaceId, { limit: 100 }))!.data.map((k) => k.id)
    expect(new Set(newest)).toEqual(new Set(made))
    expect(rows(first.body)).toEqual(newest.slice(0, 50))
    const next = /<a rel="next" href="([^"]+)">Older keys<\/a>/.exec(first.body)?.[1]
    expect(next).toBe(`${base}?starting_after=${newest[49]}`)
    const second = await other.client.call('GET', next!)
    expect(rows(second.body)).toEqual(newest.slice(50))
    expect(second.body).not.toContain('Older keys')
    // a cursor that is not one of its keys shows the newest
    expect(rows((await other.client.call('GET', `${base}?starting_after=key_nope`)).body)).toEqual(
      newest.slice(0, 50),
    )
  })

  it('the usage page has a bar per day, a quota meter, refusals and the plan limits', async () => {
    await t.post('/v1/hash/sha256', { input: 'x' }, { authorization: `Bearer ${me.key}` })
    const res = await me.client.call('GET', `/console/workspaces/${me.workspaceId}/usage?month=2026-02`)
    expect(res.body).toContain('Usage <span class="muted">2026-02</span>')
    expect([...res.body.matchAll(/<rect class="bar"/g)]).toHaveLength(28)
    const now = await me.client.call('GET', `/console/workspaces/${me.workspaceId}/usage`)
    expect(now.body).toMatch(/<span data-testid="requests">1<\/span> of 10,000 requests/)
    expect(now.body).toMatch(/<meter id="quota-meter" min="0" max="10000" value="1"/)
    expect(now.body).toContain('Refused: rate limit (per second)')
    expect(now.body).toContain('<th scope="row">Largest JSON body</th><td class="num">256 KiB</td>')
    expect(now.body).toMatch(/<svg class="chart"[^>]*role="img"/)
    // a malformed month falls back to this month rather than failing
    const bad = await me.client.call('GET', `/console/workspaces/${me.workspaceId}/usage?month=nope`)
    expect(bad.statusCode).toBe(200)
  })

  it('serves its one script and stylesheet with a content hash, ETag and long cache for versioned URLs', async () => {
    const page = (await me.client.call('GET', '/console/workspaces')).body
    const js = /<script type="module" src="([^"]+)"/.exec(page)![1]!
    const css = /<link rel="stylesheet" href="([^"]+)"/.exec(page)![1]!
    const script = await t.app.inject({ method: 'GET', url: js })
    expect(script.statusCode).toBe(200)
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(script.body).toContain('x-csrf-token')
    const style = await t.app.inject({ method: 'GET', url: css })
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8')
    const unversioned = await t.app.inject({ method: 'GET', url: '/console/assets/console.css' })
    expect(unversioned.headers['cache-control']).toBe('no-cache')
    const again = await t.app.inject({
      method: 'GET',
      url: '/console/assets/console.css',
      headers: { 'if-none-match': String(unversioned.headers.etag) },
    })
    expect(again.statusCode).toBe(304)
    expect((await t.app.inject({ method: 'GET', url: '/console/assets/nope.js' })).statusCode).toBe(404)
  })

  it('html`` escapes every interpolation unless it is html`` itself', () => {
    expect(escapeHtml(`<a href="x" title='y'>&\``)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&#96;',
    )
    const inner = html`<b>${'<i>'}</b>`
    expect(html`<p>${inner}${['<x>', html`<br>`]}${null}${undefined}${false}${0}</p>`.value).toBe(
      '<p><b>&lt;i&gt;</b>&lt;x&gt;<br>0</p>',
    )
    // a look-alike object is not trusted markup
    expect(html`${{ value: '<script>' }}`.value).toBe('[object Object]')
  })

  // the certificate as a file the reader saves beside them, never a path on the server's disk
  it('the curl line names the downloadable certificate file, not a server path', () => {
    expect(curlExample('localhost:8443', 'anvil_live_x', true)).toBe(
      `curl --cacert anvil-cert.pem https://localhost:8443/v1/hash/sha256 -H 'Authorization: Bearer anvil_live_x' -H 'Content-Type: application/json' -d '{"input":"hello"}'`,
    )
    expect(curlExample('api.example.com', 'k', false)).toMatch(
      /^curl https:\/\/api\.example\.com\/v1\/hash\/sha256 /,
    )
  })
})
