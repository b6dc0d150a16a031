import type { FastifyInstance } from 'fastify'
import type { Catalog } from '../../ops/catalog.ts'
import { hashRoutes } from './hash.ts'
import { jobsRoutes } from './jobs.ts'
import { opRoutes } from './ops.ts'

// Every /v1 route: one per operation of the catalog, and the few that are not operations (the hash
// algorithms list, the jobs).
export async function v1Routes(app: FastifyInstance, options: { catalog: Catalog }): Promise<void> {
  await app.register(opRoutes, options)
  await app.register(hashRoutes)
  await app.register(jobsRoutes, options)
}
