import type { FastifyReply, FastifyRequest } from 'fastify'
import { clearedSessionCookie, readSessionToken, sessionCookie } from '../../accounts/session.ts'
import { AppError } from '../../errors.ts'
import type { AccessRule } from '../hooks/access.ts'
import type { ConsoleDeps } from './context.ts'
import { checkCsrfToken, checkOrigin } from './csrf.ts'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export interface ConsoleSession {
  // resolves the session cookie into request.consoleAuth, once per request (whoever asks first)
  load(request: FastifyRequest, reply: FastifyReply): Promise<void>
  // the `sessionCookie` access rule (src/http/hooks/access.ts)
  rule: AccessRule
}

export function consoleSession(deps: ConsoleDeps): ConsoleSession {
  const loaded = new WeakSet<FastifyRequest>()

  async function load(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (loaded.has(request)) return
    loaded.add(request)
    const token = readSessionToken(request.headers.cookie)
    if (!token) return
    const resumed = await deps.sessions.resume(token)
    const user = resumed && (await deps.accounts.getUser(resumed.session.user_id))
    if (!resumed || !user) {
      reply.header('set-cookie', clearedSessionCookie())
      return
    }
    request.consoleAuth = {
      user: { id: user.id, email: user.email, created_at: user.created_at },
      session: resumed.session,
    }
    if (resumed.renewedMaxAge !== null)
      reply.header('set-cookie', sessionCookie(token, resumed.renewedMaxAge))
  }

  // A signed-in user; on a write also a same-origin request carrying the session's CSRF token. The
  // Origin check comes first, so a cross-site write is refused as such whether or not it has a session.
  async function requireSession(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const write = !SAFE_METHODS.has(request.method)
    if (write) checkOrigin(request)
    await load(request, reply)
    if (!request.consoleAuth) throw new AppError('ERR_UNAUTHORIZED', 'Sign in to the console first.')
    if (write) checkCsrfToken(request, request.consoleAuth.session.csrf_token)
  }

  return { load, rule: { check: requireSession } }
}
