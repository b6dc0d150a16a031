import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { digestStream, isReadable, wantsOctets } from '../../lib/stream-digest.ts'
import { BYTE_ENCODINGS, DIGEST_ENCODINGS, encodeOutput } from '../../ops/encoding.ts'
import { ALGORITHMS, algorithmInfo, createHasher, MAX_XOF_LENGTH } from '../../ops/hash.ts'
import { defineRoute } from '../define.ts'

const lengthSchema = z.coerce
  .number()
  .int()
  .min(1)
  .max(MAX_XOF_LENGTH)
  .describe('Output length in bytes, for shake128/shake256 only')

export const hashBody = z.strictObject({
  input: z.string().describe('The data to hash, in input_encoding'),
  input_encoding: z.enum(BYTE_ENCODINGS).default('utf8'),
  output_encoding: z.enum(DIGEST_ENCODINGS).default('hex'),
  length: lengthSchema.optional(),
})

const hashQuery = z.strictObject({
  output_encoding: z.enum(DIGEST_ENCODINGS).default('hex'),
  length: lengthSchema.optional(),
})

export const hashResult = z.object({
  algorithm: z.string(),
  digest: z.string(),
  output_encoding: z.enum(DIGEST_ENCODINGS),
  input_bytes: z.number().int(),
})

const algorithmsResult = z.object({
  algorithms: z.array(
    z.object({
      name: z.string(),
      digest_bytes: z.number().int(),
      secure: z.boolean(),
      xof: z.boolean(),
      default_length: z.number().int().optional(),
    }),
  ),
})

export async function hashRoutes(app: FastifyInstance): Promise<void> {
  defineRoute(app, {
    method: 'GET',
    url: '/v1/hash/algorithms',
    family: 'hash',
    operationId: 'listHashAlgorithms',
    summary: 'List the hash algorithms',
    tags: ['Hash'],
    response: algorithmsResult,
    handler: () => ({ algorithms: [...ALGORITHMS] }),
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/hash/:algorithm',
    family: 'hash',
    binary: true,
    binaryResponse: true,
    operationId: 'hash',
    summary: 'Hash text or bytes',
    description:
      'JSON body, or a raw application/octet-stream body hashed as it streams (options from the query string). ' +
      'Send Accept: application/octet-stream for the raw digest bytes.',
    tags: ['Hash'],
    params: z.object({ algorithm: z.string().max(64) }),
    querystring: hashQuery,
    body: hashBody,
    response: hashResult,
    errors: ['ERR_UNSUPPORTED_ALGORITHM', 'ERR_INVALID_ENCODING'],
    handler: async function hashHandler({ body, params, query, request, reply, run }) {
      const raw = wantsOctets(request.headers.accept)
      let result: z.infer<typeof hashResult>
      if (isReadable(body)) {
        const info = algorithmInfo(params.algorithm)
        const hasher = createHasher(info.name, query.length)
        const size = await digestStream(body, hasher, request.bodyLimit)
        const digest = hasher.digest()
        if (raw) return reply.type('application/octet-stream').send(digest)
        result = {
          algorithm: info.name,
          digest: encodeOutput(digest, query.output_encoding),
          output_encoding: query.output_encoding,
          input_bytes: size,
        }
      } else {
        result = await run('hash', {
          ...body,
          algorithm: params.algorithm,
          output_encoding: raw ? 'hex' : body.output_encoding,
        })
        if (raw) return reply.type('application/octet-stream').send(Buffer.from(result.digest, 'hex'))
      }
      return result
    },
  })
}
