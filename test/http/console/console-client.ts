import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

export const HOST = 'console.test'
export const ORIGIN = `http://${HOST}`
export const PASSWORD = 'correct horse battery staple'

export interface CallOptions {
  // null: leave the header out; a string: send that instead of the session's own
  csrf?: string | null
  origin?: string | null
  headers?: Record<string, string>
  ip?: string
}

// A browser-like caller of the console through inject: keeps the session cookie it was given and
// sends the CSRF token and a same-origin Origin, unless a test says otherwise.
export class ConsoleClient {
  readonly app: FastifyInstance
  cookie: string | undefined
  csrf: string | undefined
  // the signed-in person, once a sign-up or sign-in answered
  userId: string | undefined
  ip: string

  constructor(app: FastifyInstance, ip = '198.51.100.10') {
    this.app = app
    this.ip = ip
  }

  async call(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    options: CallOptions = {},
  ): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { host: HOST }
    const origin = options.origin === undefined ? ORIGIN : options.origin
    if (origin !== null && method !== 'GET') headers.origin = origin
    const csrf = options.csrf === undefined ? this.csrf : options.csrf
    if (csrf && method !== 'GET') headers['x-csrf-token'] = csrf
    if (this.cookie) headers.cookie = this.cookie
    if (body !== undefined) headers['content-type'] = 'application/json'
    const res = await this.app.inject({
      method,
      url,
      headers: { ...headers, ...options.headers },
      remoteAddress: options.ip ?? this.ip,
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    })
    const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])
    for (const c of setCookie) {
      const m = /^anvil_session=([^;]*)/.exec(c)
      if (m) this.cookie = m[1] ? `anvil_session=${m[1]}` : undefined
    }
    if (res.statusCode === 200 && String(res.headers['content-type']).startsWith('application/json')) {
      const data = (res.json() as { data?: { csrf_token?: string; user?: { id?: string } } }).data
      if (data?.csrf_token) this.csrf = data.csrf_token
      if (data?.user?.id) this.userId = data.user.id
    }
    return res
  }

  async signUp(email: string, password = PASSWORD, workspace_name = 'Acme') {
    const res = await this.call('POST', '/console/api/signup', { email, password, workspace_name })
    if (res.statusCode !== 200) throw new Error(`sign-up failed: ${res.body}`)
    return res.json().data as { user: { id: string }; workspace: { id: string }; csrf_token: string }
  }

  signIn(email: string, password = PASSWORD, options: CallOptions = {}) {
    return this.call('POST', '/console/api/signin', { email, password }, options)
  }
}

export function cookiesOf(res: LightMyRequestResponse): string[] {
  return ([] as string[]).concat(res.headers['set-cookie'] ?? [])
}
