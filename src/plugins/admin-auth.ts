import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '../errors.ts'

const digest = (s: string) => createHash('sha256').update(s).digest()

// Admin routes need `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time.
async function adminAuthPlugin(app: FastifyInstance, options: { token: string }): Promise<void> {
  const expected = digest(options.token)
  app.addHook('onRequest', async function checkAdminToken(request, reply) {
    if (!request.url.startsWith('/admin')) return
    const m = /^Bearer[ ]+(\S+)$/i.exec(request.headers.authorization ?? '')
    if (!m || !timingSafeEqual(digest(m[1]!), expected)) {
      reply.header('www-authenticate', 'Bearer realm="anvil-admin"')
      throw new AppError('ERR_UNAUTHORIZED', 'Send Authorization: Bearer <ADMIN_TOKEN>.')
    }
  })
}

export const adminAuth = fp(adminAuthPlugin, { name: 'anvil-admin-auth' })
