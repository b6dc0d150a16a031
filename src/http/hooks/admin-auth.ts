import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '../../errors.ts'

const digest = (s: string) => createHash('sha256').update(s).digest()

// The `admin` access rule: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time (digests of
// equal length, so neither the token's content nor its length leaks). Enforced by the access hook on
// every route that declares it (src/http/hooks/access.ts), never from the URL.
async function adminAuthPlugin(app: FastifyInstance, options: { token: string }): Promise<void> {
  const expected = digest(options.token)
  app.access.provide('admin', {
    async check(request: FastifyRequest, reply: FastifyReply) {
      const m = /^Bearer[ ]+(\S+)$/i.exec(request.headers.authorization ?? '')
      if (!m || !timingSafeEqual(digest(m[1]!), expected)) {
        reply.header('www-authenticate', 'Bearer realm="anvil-admin"')
        throw new AppError('ERR_UNAUTHORIZED', 'Send Authorization: Bearer <ADMIN_TOKEN>.')
      }
    },
  })
}

export const adminAuth = fp(adminAuthPlugin, { name: 'anvil-admin-auth', dependencies: ['anvil-access'] })
