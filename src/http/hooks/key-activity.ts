import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { KeyActivity } from '../../accounts/key-activity.ts'

export interface KeyActivityOptions {
  activity: KeyActivity
  clock: () => number
}

// "Last used" for API keys, shown in the console: every request the auth hook let through marks its key
// (a map entry; KeyActivity writes them to the account store in batches, off the request path).
async function keyActivityPlugin(
  app: FastifyInstance,
  { activity, clock }: KeyActivityOptions,
): Promise<void> {
  app.addHook('onResponse', function recordKeyUse(request: FastifyRequest, _reply: FastifyReply, done) {
    const auth = request.auth
    if (auth?.decision?.allowed) activity.touch(auth.key.id, clock())
    done()
  })
}

export const keyActivityHook = fp(keyActivityPlugin, {
  name: 'anvil-key-activity',
  dependencies: ['anvil-auth'],
})
