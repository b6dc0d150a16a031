import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { hashPassword, verifyPassword } from '../../../accounts/password.ts'
import { clearedSessionCookie, sessionCookie } from '../../../accounts/session.ts'
import { chargeSignIn, signInSucceeded } from '../../../accounts/sign-in-limits.ts'
import { AppError } from '../../../errors.ts'
import { defineRoute } from '../../route/define-route.ts'
import { memberWorkspaces } from '../access.ts'
import type { ConsoleDeps } from '../context.ts'
import { deleteOwnedWorkspace, workspaceBlockers } from '../deletion.ts'
import { changePasswordBody, deleteAccountBody, deletedSchema, sessionSchema } from './schemas.ts'

const tags = ['Console']

// The signed-in person's account: a new password, or the account deleted. Both ask for the password in
// use, checked like a sign-in (the same limits per account and address, the same scrypt), so a session
// left open on someone else's screen cannot take the account over or delete it. A wrong password is a
// 400 on its field, not a 401: the session is fine.
export async function accountSettingsRoutes(
  app: FastifyInstance,
  { deps }: { deps: ConsoleDeps },
): Promise<void> {
  const { accounts, sessions, clock } = deps

  async function confirmPassword(request: FastifyRequest, password: string, field: string): Promise<void> {
    const auth = request.consoleAuth!
    const limited = await chargeSignIn(accounts, auth.user.email, request.ip, clock())
    if (!limited.allowed) {
      const wait = limited.retryAfterSeconds
      throw new AppError(
        'ERR_RATE_LIMITED',
        `Too many password attempts. Try again in ${wait} seconds.`,
        { retry_after_seconds: wait },
        { 'retry-after': String(wait) },
      )
    }
    const user = await accounts.getUser(auth.user.id)
    if (!user || !(await verifyPassword(password, user.password_hash))) {
      throw new AppError('ERR_VALIDATION', 'The password is wrong.', {
        issues: [{ path: field, message: 'is not the password of this account' }],
      })
    }
    await signInSucceeded(accounts, auth.user.email, request.ip)
  }

  defineRoute(app, {
    method: 'POST',
    url: '/account/password',
    security: 'sessionCookie',
    operationId: 'consoleChangePassword',
    summary: 'Change the password; every other session is signed out',
    description:
      'Needs `current_password` (wrong: 400 ERR_VALIDATION on that field; attempts limited like sign-in, 429 ' +
      'with Retry-After). Every session of the account ends, this one included, and this browser gets a new ' +
      'one (a new cookie and CSRF token, answered here): anyone signed in elsewhere must sign in again with ' +
      'the new password. `other_sessions_ended` counts the others.',
    tags,
    body: changePasswordBody,
    response: sessionSchema.extend({
      other_sessions_ended: z
        .number()
        .int()
        .describe('Sessions of this account on other browsers, now ended'),
    }),
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_VALIDATION', 'ERR_RATE_LIMITED'],
    handler: async ({ body, request, reply }) => {
      const auth = request.consoleAuth!
      await confirmPassword(request, body.current_password, 'current_password')
      await accounts.setPasswordHash(auth.user.id, await hashPassword(body.new_password))
      const ended = await accounts.deleteSessionsOf(auth.user.id)
      const started = await sessions.start(auth.user.id)
      reply.removeHeader('set-cookie')
      reply.header('set-cookie', sessionCookie(started.token, started.maxAge))
      return {
        user: auth.user,
        csrf_token: started.session.csrf_token,
        expires_at: started.session.expires_at,
        other_sessions_ended: Math.max(0, ended - 1),
      }
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/account/delete',
    security: 'sessionCookie',
    operationId: 'consoleDeleteAccount',
    summary: 'Delete the account and the workspaces it owns',
    description:
      'Needs `password` (wrong: 400 ERR_VALIDATION on that field; limited like sign-in). The workspaces the ' +
      'account owns are deleted with it, with everything in them, so it is refused (409 ERR_CONFLICT, the ' +
      "first workspace's reason: `live_keys` or `jobs_in_flight`, and its id) while any of them has a live key " +
      'or a job queued or running: revoke, or delete those workspaces yourself, first. Then every session ' +
      'ends and the email may sign up again.',
    tags,
    body: deleteAccountBody,
    response: deletedSchema,
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_VALIDATION', 'ERR_CONFLICT', 'ERR_RATE_LIMITED'],
    handler: async ({ body, request, reply }) => {
      const userId = request.consoleAuth!.user.id
      await confirmPassword(request, body.password, 'password')
      const owned = (await memberWorkspaces(deps, userId)).filter((m) => m.role === 'owner')
      for (const { workspace } of owned) {
        const blocker = await workspaceBlockers(deps, workspace)
        if (blocker) throw blocker
      }
      for (const { workspace } of owned) await deleteOwnedWorkspace(deps, userId, workspace)
      await accounts.deleteUser(userId)
      reply.removeHeader('set-cookie')
      reply.header('set-cookie', clearedSessionCookie())
      return { id: userId, deleted: true as const }
    },
  })
}
