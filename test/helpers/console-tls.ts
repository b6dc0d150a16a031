import { h1Request, h2Request, type RawResponse } from './tls-client.ts'

// A browser-like caller of the console over a real TLS socket (HTTP/1.1, or HTTP/2 with `h2`): keeps the
// session cookie it was given, sends the session's CSRF token and the gateway's own Origin on writes.
export class TlsConsole {
  readonly base: string
  readonly ca: string
  cookie: string | undefined
  csrf: string | undefined
  #request: typeof h1Request

  constructor(base: string, ca: string, options: { h2?: boolean } = {}) {
    this.base = base
    this.ca = ca
    this.#request = options.h2 ? h2Request : h1Request
  }

  async call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RawResponse> {
    const sent: Record<string, string> = {}
    if (method !== 'GET') sent.origin = new URL(this.base).origin
    if (method !== 'GET' && this.csrf) sent['x-csrf-token'] = this.csrf
    if (this.cookie) sent.cookie = this.cookie
    if (body !== undefined) sent['content-type'] = 'application/json'
    const res = await this.#request(this.base, {
      method,
      path,
      ca: this.ca,
      headers: { ...sent, ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    for (const c of ([] as string[]).concat(res.headers['set-cookie'] ?? [])) {
      const m = /^anvil_session=([^;]*)/.exec(c)
      if (m) this.cookie = m[1] ? `anvil_session=${m[1]}` : undefined
    }
    if (res.status === 200 && String(res.headers['content-type']).startsWith('application/json')) {
      const data = res.json<{ data?: { csrf_token?: string } }>().data
      if (data?.csrf_token) this.csrf = data.csrf_token
    }
    return res
  }

  // signs up (with its first workspace); answers the new workspace's id
  async signUp(email: string, headers: Record<string, string> = {}): Promise<string> {
    const body = { email, password: 'correct horse battery staple', workspace_name: 'Acme' }
    const res = await this.call('POST', '/console/api/signup', body, headers)
    if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${res.body}`)
    return res.json<{ data: { workspace: { id: string } } }>().data.workspace.id
  }
}
