import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '../../errors.ts'
import { hostAllowlist } from '../../lib/host-allowlist.ts'

// Every request to the internal listener must name it by an allowed Host, before any other hook (the
// access rule, a body, a route's work): a page on another site that rebinds its own name to this
// address gets 403 ERR_FORBIDDEN_HOST for everything, /metrics included.
async function adminHostPlugin(app: FastifyInstance, options: { allowed: readonly string[] }): Promise<void> {
  const allowlist = hostAllowlist(options.allowed)
  app.addHook('onRequest', async function checkHost(request) {
    if (!allowlist.allows(request.headers.host)) {
      throw new AppError('ERR_FORBIDDEN_HOST', 'This Host is not one the internal listener answers to.')
    }
  })
}

export const adminHost = fp(adminHostPlugin, { name: 'anvil-admin-host' })
