import { z } from 'zod'
import { ownBytes } from '../../lib/own-bytes.ts'
import { defineOp } from '../define.ts'
import { fill } from '../worst-case.ts'
import { algorithmInfo, createHasher, hash } from './hash.ts'
import { hashAlgorithmParam, hashBody, hashParams, hashQuery, hashResult } from './schema.ts'
import { hashStep } from './stream.ts'

export default defineOp({
  name: 'hash',
  family: 'hash',
  http: {
    path: '/v1/hash/:algorithm',
    params: z.object({ algorithm: hashAlgorithmParam }),
    query: hashQuery,
    operationId: 'hash',
    summary: 'Hash text or bytes',
    description:
      'JSON body, or a raw application/octet-stream body hashed as it streams (options from the query string). ' +
      'Send Accept: application/octet-stream for the raw digest bytes.',
    errors: ['ERR_UNSUPPORTED_ALGORITHM', 'ERR_INVALID_ENCODING'],
  },
  // the algorithm joins the body from the path, inline or on the worker
  with: (params: { algorithm: string }) => ({ algorithm: params.algorithm }),
  body: hashBody,
  response: hashResult,
  run: hash,
  cost: { worst: 'sha512 of ASCII text', usPerKiB: 6 },
  worst: (bytes) => ({ algorithm: 'sha512', input: fill('x', bytes) }),
  warm: [{ algorithm: 'sha256', input: 'x'.repeat(4096) }],
  // a raw-bytes answer asks for a hex digest, then turned into its bytes where the op ran
  octets: {
    with: { output_encoding: 'hex' },
    bytes: (result) => ownBytes(Buffer.from(result.digest, 'hex')),
  },
  stream: {
    options: ({ params, query }) => {
      const info = algorithmInfo(params.algorithm!)
      // an unknown algorithm or a misplaced length is refused here, before a byte is read or a thread taken
      createHasher(info.name, query.length)
      return { algorithm: info.name, length: query.length, output_encoding: query.output_encoding }
    },
    step: hashStep,
  },
  job: {
    params: hashParams,
    // an unknown algorithm is refused at submission, as the endpoint refuses it
    check: (params) => void algorithmInfo(params.algorithm),
    progress: 'bytes hashed',
  },
  examples: [
    {
      summary: 'Hash a string (SHA-256, hex by default)',
      path: '/v1/hash/sha256',
      body: { input: 'hello' },
      data: {
        algorithm: 'sha256',
        digest: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
        output_encoding: 'hex',
        input_bytes: 5,
      },
    },
    {
      summary: 'Base64 output, and an extendable-output function with its length in bytes',
      path: '/v1/hash/shake256',
      body: { input: 'hello', output_encoding: 'base64', length: 16 },
      data: {
        algorithm: 'shake256',
        digest: 'EjQHWuSh53MWzy2AAJdFgQ==',
        output_encoding: 'base64',
        input_bytes: 5,
      },
    },
    {
      summary: 'An unknown algorithm names the supported ones',
      path: '/v1/hash/sha257',
      body: { input: 'hello' },
      error: {
        type: 'invalid_request',
        message: 'Unknown hash algorithm "sha257"; see GET /v1/hash/algorithms',
        code: 'ERR_UNSUPPORTED_ALGORITHM',
        details: { algorithm: 'sha257' },
      },
    },
    {
      summary:
        "The answer's media type is negotiated (`Accept`, RFC 9110): JSON unless the client prefers raw bytes. " +
        'A client that lists both with JSON preferred, by order or by `q`, gets JSON',
      path: '/v1/hash/sha256',
      headers: { accept: 'application/octet-stream;q=0.5, application/json' },
      body: { input: 'abc' },
      data: {
        algorithm: 'sha256',
        digest: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
        output_encoding: 'hex',
        input_bytes: 3,
      },
    },
    {
      summary: 'One that accepts neither gets `406`',
      path: '/v1/hash/sha256',
      headers: { accept: 'text/html' },
      body: { input: 'abc' },
      error: {
        type: 'invalid_request',
        message: 'None of the media types this endpoint answers with is acceptable (Accept).',
        code: 'ERR_NOT_ACCEPTABLE',
        details: { available: ['application/json', 'application/octet-stream'] },
      },
    },
  ],
})
