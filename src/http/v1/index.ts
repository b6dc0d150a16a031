import type { FastifyInstance } from 'fastify'
import { base64Routes } from './base64.ts'
import { cronRoutes } from './cron.ts'
import { hashRoutes } from './hash.ts'
import { hmacRoutes } from './hmac.ts'
import { idRoutes } from './id.ts'
import { jobsRoutes } from './jobs.ts'
import { jsonRoutes } from './json.ts'
import { jsonDiffRoutes } from './json-diff.ts'
import { jwtRoutes } from './jwt.ts'
import { textRoutes } from './text.ts'
import { timeRoutes } from './time.ts'
import { urlRoutes } from './url.ts'

// Every /v1 utility family, one plugin per file.
export async function v1Routes(app: FastifyInstance): Promise<void> {
  await app.register(hashRoutes)
  await app.register(cronRoutes)
  await app.register(base64Routes)
  await app.register(textRoutes)
  await app.register(hmacRoutes)
  await app.register(jwtRoutes)
  await app.register(urlRoutes)
  await app.register(jsonRoutes)
  await app.register(jsonDiffRoutes)
  await app.register(timeRoutes)
  await app.register(idRoutes)
  await app.register(jobsRoutes)
}
