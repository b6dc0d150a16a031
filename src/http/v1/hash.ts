import type { FastifyInstance } from 'fastify'
import { algorithmsResult } from '../../ops/hash/schema.ts'
import { ALGORITHMS } from '../../ops/hash/stream.ts'
import { defineRoute } from '../route/define-route.ts'

// The hash family's list of algorithms (POST /v1/hash/{algorithm} itself is an op: src/ops/hash/hash.op.ts).
export async function hashRoutes(app: FastifyInstance): Promise<void> {
  defineRoute(app, {
    method: 'GET',
    url: '/v1/hash/algorithms',
    security: 'apiKey',
    family: 'hash',
    operationId: 'listHashAlgorithms',
    summary: 'List the hash algorithms',
    description:
      "Every algorithm POST /v1/hash/{algorithm} takes, by its canonical name: this runtime's OpenSSL " +
      'digests plus crc32, with the digest size, whether it is still considered secure (md5 and sha1 are ' +
      'not) and, for the extendable-output shake128/shake256, their default length.',
    tags: ['Hash'],
    response: algorithmsResult,
    handler: () => ({ algorithms: [...ALGORITHMS] }),
  })
}
