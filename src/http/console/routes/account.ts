import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { z } from 'zod'
import { hashPassword, verifyPassword } from '../../../accounts/password.ts'
import { clearedSessionCookie, sessionCookie } from '../../../accounts/session.ts'
import {
  chargeSignIn,
  chargeSignUp,
  type LimitOutcome,
  signInSucceeded,
} from '../../../accounts/sign-in-limits.ts'
import type { Session, User } from '../../../accounts/store/types.ts'
import { AppError } from '../../../errors.ts'
import { defineRoute } from '../../route/define-route.ts'
import type { ConsoleDeps } from '../context.ts'
import { createConsoleWorkspace } from '../new-workspace.ts'
import { workspaceView } from '../views.ts'
import { sessionSchema, signInBody, signUpBody, workspaceSchema } from './schemas.ts'

const tags = ['Console']

function userView(user: Pick<User, 'id' | 'email' | 'created_at'>) {
  return { id: user.id, email: user.email, created_at: user.created_at }
}

function refuseIfLimited(outcome: LimitOutcome, what: string): void {
  if (outcome.allowed) return
  const wait = outcome.retryAfterSeconds
  throw new AppError(
    'ERR_RATE_LIMITED',
    `Too many ${what} attempts. Try again in ${wait} seconds.`,
    { retry_after_seconds: wait },
    { 'retry-after': String(wait) },
  )
}

function setSession(reply: FastifyReply, token: string, maxAge: number): void {
  reply.removeHeader('set-cookie')
  reply.header('set-cookie', sessionCookie(token, maxAge))
}

function sessionView(user: Pick<User, 'id' | 'email' | 'created_at'>, session: Session) {
  return { user: userView(user), csrf_token: session.csrf_token, expires_at: session.expires_at }
}

// Sign-up, sign-in, sign-out and the current session. Passwords go to scrypt and nowhere else: they
// are not stored, returned, logged or echoed in an error.
export async function accountRoutes(app: FastifyInstance, { deps }: { deps: ConsoleDeps }): Promise<void> {
  const { accounts, sessions, clock } = deps
  // an unknown email costs the same scrypt as a known one, so timing does not tell them apart
  const dummyHash = hashPassword(randomBytes(16).toString('hex'))

  defineRoute(app, {
    method: 'POST',
    url: '/signup',
    security: 'none',
    operationId: 'consoleSignUp',
    summary: 'Create an account and its first workspace, and sign in',
    description:
      'Sets the anvil_session cookie. Limited per source address. Idempotency-Key is not honoured here: an ' +
      'account is unique per email, so a retry never creates a second account or workspace (409 ERR_CONFLICT).',
    tags,
    body: signUpBody,
    response: sessionSchema.extend({ workspace: workspaceSchema }),
    errors: ['ERR_CONFLICT', 'ERR_CSRF', 'ERR_RATE_LIMITED'],
    handler: async ({ body, request, reply }) => {
      refuseIfLimited(await chargeSignUp(accounts, request.ip, clock()), 'sign-up')
      const user = await accounts.createUser({
        email: body.email,
        password_hash: await hashPassword(body.password),
      })
      if (!user) {
        throw new AppError('ERR_CONFLICT', 'An account with this email exists. Sign in instead.', {
          issues: [{ path: 'email', message: 'is already registered' }],
        })
      }
      const workspace = await createConsoleWorkspace(deps, body.workspace_name)
      await accounts.addMembership({
        user_id: user.id,
        workspace_id: workspace.id,
        role: 'owner',
        created_at: workspace.created_at,
      })
      const started = await sessions.start(user.id, request.consoleAuth?.session.id)
      setSession(reply, started.token, started.maxAge)
      return {
        ...sessionView(user, started.session),
        workspace: workspaceView(deps.plans, workspace, 'owner'),
      }
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/signin',
    security: 'none',
    operationId: 'consoleSignIn',
    summary: 'Sign in with email and password',
    description:
      'Always a new session id (any previous session of this browser is ended). A wrong password and an ' +
      'unknown email get the same answer. Attempts are limited per account and address (5, then a delay ' +
      'of 1 s doubling up to 15 min) and per address (20, then the same growing delay), answered with ' +
      '429 and Retry-After; never per account alone, so nobody can lock an owner out from elsewhere.',
    tags,
    body: signInBody,
    response: sessionSchema,
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_RATE_LIMITED'],
    handler: async ({ body, request, reply }) => {
      refuseIfLimited(await chargeSignIn(accounts, body.email, request.ip, clock()), 'sign-in')
      const user = await accounts.findUserByEmail(body.email)
      const valid = await verifyPassword(body.password, user?.password_hash ?? (await dummyHash))
      if (!user || !valid) throw new AppError('ERR_UNAUTHORIZED', 'The email or the password is wrong.')
      await signInSucceeded(accounts, body.email, request.ip)
      const started = await sessions.start(user.id, request.consoleAuth?.session.id)
      setSession(reply, started.token, started.maxAge)
      return sessionView(user, started.session)
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/signout',
    security: 'sessionCookie',
    operationId: 'consoleSignOut',
    summary: 'Sign out: the session is deleted on the server and the cookie cleared',
    description:
      'Ends this session only (other browsers stay signed in). Like every console write it needs the ' +
      "session's X-CSRF-Token and a same-origin Origin. Without a valid session: 401 ERR_UNAUTHORIZED.",
    tags,
    response: z.object({ signed_out: z.literal(true) }),
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF'],
    handler: async ({ request, reply }) => {
      await sessions.end(request.consoleAuth!.session.id)
      reply.removeHeader('set-cookie')
      reply.header('set-cookie', clearedSessionCookie())
      return { signed_out: true as const }
    },
  })

  defineRoute(app, {
    method: 'GET',
    url: '/session',
    security: 'sessionCookie',
    operationId: 'consoleSession',
    summary: 'The signed-in user and the CSRF token to send with writes',
    description:
      'What a page loads first: who is signed in, the CSRF token every console POST must send as ' +
      'X-CSRF-Token, and when the session ends (7 days after its last use, 30 days after sign-in at the ' +
      'latest). No session, or an ended one: 401 ERR_UNAUTHORIZED.',
    tags,
    response: sessionSchema,
    errors: ['ERR_UNAUTHORIZED'],
    handler: ({ request }) => sessionView(request.consoleAuth!.user, request.consoleAuth!.session),
  })
}
