import type { FastifyRequest } from 'fastify'
import type { KeyActivity } from '../../accounts/key-activity.ts'

export interface KeyActivityOptions {
  activity: KeyActivity
  clock: () => number
}

// "Last used" for API keys, shown in the console: every request the access rule let through marks its key
// (a map entry; KeyActivity writes them to the account store in batches, off the request path). The lane's
// record step calls it once the answer is out.
export function keyUse({ activity, clock }: KeyActivityOptions): (request: FastifyRequest) => void {
  return function recordKeyUse(request) {
    const auth = request.auth
    if (auth?.decision?.allowed) activity.touch(auth.key.id, clock())
  }
}
