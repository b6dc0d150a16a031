import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { RawOptions } from '../../exec/dispatch.ts'
import {
  algorithmsResult,
  hashAlgorithmParam,
  hashBody,
  hashQuery,
  hashResult,
} from '../../ops/hash/schema.ts'
import { ALGORITHMS, algorithmInfo, createHasher, encodeOutput } from '../../ops/hash/stream.ts'
import { digestOnPool } from '../body/stream-digest.ts'
import { defineRoute } from '../define-route.ts'
import { answerBytes } from '../lane/answer.ts'

// What the route adds to its JSON body, inline or on the worker: the algorithm from the path, and for a
// raw-bytes answer a hex digest (then turned into its bytes).
function hashOptions(
  algorithm: string,
  raw: boolean,
): RawOptions & { with: { algorithm: string; output_encoding?: 'hex' } } {
  return { with: raw ? { algorithm, output_encoding: 'hex' } : { algorithm }, octets: raw }
}

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

  defineRoute(app, {
    method: 'POST',
    url: '/v1/hash/:algorithm',
    security: 'apiKey',
    family: 'hash',
    op: 'hash',
    binary: true,
    binaryResponse: true,
    operationId: 'hash',
    summary: 'Hash text or bytes',
    description:
      'JSON body, or a raw application/octet-stream body hashed as it streams (options from the query string). ' +
      'Send Accept: application/octet-stream for the raw digest bytes.',
    tags: ['Hash'],
    params: z.object({ algorithm: hashAlgorithmParam }),
    querystring: hashQuery,
    body: hashBody,
    response: hashResult,
    errors: ['ERR_UNSUPPORTED_ALGORITHM', 'ERR_INVALID_ENCODING'],
    adds: ({ params, octets }) => hashOptions(params.algorithm, octets),
    stream: async function hashStream({ body, params, query, request, reply, octets: raw }) {
      const info = algorithmInfo(params.algorithm)
      // an unknown algorithm or a misplaced length is refused here, before a byte is read or a thread taken
      createHasher(info.name, query.length)
      const job = {
        kind: 'hash' as const,
        algorithm: info.name,
        ...(query.length !== undefined ? { length: query.length } : {}),
      }
      const { digest, bytes: size } = await digestOnPool(request, reply, body, job)
      if (raw) return answerBytes(reply, digest)
      return {
        algorithm: info.name,
        digest: encodeOutput(digest, query.output_encoding),
        output_encoding: query.output_encoding,
        input_bytes: size,
      }
    },
  })
}
