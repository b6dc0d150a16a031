import { z } from 'zod'
import { ownBytes } from '../../lib/own-bytes.ts'
import { defineOp } from '../define.ts'
import { HELD_ANSWER_LIMIT } from '../stream-step.ts'
import { algorithmOf, compress } from './compression.ts'
import { algorithmParam, compressBody, compressQuery, compressResult } from './schema.ts'
import { levelFor } from './session.ts'
import { compressStep } from './stream.ts'
import { LEVEL_CAPS, LEVELS } from './types.ts'
import { twoLetterText } from './worst.ts'

export default defineOp({
  name: 'compression.compress',
  family: 'compression',
  http: {
    path: '/v1/compress/:algorithm',
    params: z.object({ algorithm: algorithmParam }),
    query: compressQuery,
    operationId: 'compress',
    summary: 'Compress bytes: gzip, deflate, deflate-raw, brotli, zstd',
    description:
      'JSON body (the bytes in input_encoding; the answer in output_encoding, Base64 by default), or a raw ' +
      "application/octet-stream body compressed as it streams on the plan's pool (options from the query " +
      'string: level, output_encoding). Send Accept: application/octet-stream for the compressed bytes as the ' +
      "raw answer, streamed at constant memory up to the plan's binary limit; a raw body answered as JSON may " +
      "be at most 100 MiB. deflate is the zlib format (RFC 1950), as HTTP's Content-Encoding: deflate; " +
      'deflate-raw the bare RFC 1951 stream. zstd frames carry a checksum, as the zstd tool writes them. A level ' +
      "outside the algorithm's range is 400 ERR_VALIDATION; one above the plan's cap 422 ERR_PLAN_CAP.",
    errors: ['ERR_UNSUPPORTED_ALGORITHM', 'ERR_INVALID_ENCODING', 'ERR_PLAN_CAP'],
  },
  with: (params: { algorithm: string }) => ({ algorithm: params.algorithm }),
  body: compressBody,
  response: compressResult,
  run: compress,
  caps: {
    [LEVEL_CAPS.gzip]: {
      free: 6,
      pro: 9,
      business: 9,
      describe: 'Highest gzip, deflate and deflate-raw level (0–9) one compression may ask',
    },
    [LEVEL_CAPS.brotli]: {
      free: 9,
      pro: 11,
      business: 11,
      describe: 'Highest brotli quality (0–11) one compression may ask',
    },
    [LEVEL_CAPS.zstd]: {
      free: 12,
      pro: 19,
      business: 19,
      describe: 'Highest zstd level (1–22; 20–22 need 160–640 MiB of memory) one compression may ask',
    },
  },
  cost: {
    worst: 'gzip level 6 of two letters at random',
    usPerKiB: 400,
    // a level past the algorithm's default costs up to ~25x more per byte (gzip -9 of two letters: ~6 ms/KiB)
    heavy: (input) => {
      const algorithm = input.algorithm.toLowerCase() as keyof typeof LEVELS
      return input.level !== undefined && input.level > (LEVELS[algorithm]?.default ?? 0)
    },
  },
  worst: (bytes) => ({ algorithm: 'gzip', input: twoLetterText(bytes - 64), level: 6 }),
  octets: {
    with: { output_encoding: 'base64' },
    bytes: (result) => ownBytes(Buffer.from(result.output, 'base64')),
  },
  stream: {
    options: ({ params, query, caps }) => {
      const algorithm = algorithmOf(params.algorithm!)
      // an unknown algorithm or a level past the plan's cap is refused before a byte is read
      return {
        algorithm,
        level: levelFor(algorithm, query.level, caps),
        output_encoding: query.output_encoding,
      }
    },
    step: compressStep,
    jsonBodyLimit: HELD_ANSWER_LIMIT,
  },
  examples: [
    {
      summary: 'gzip a text (the answer is Base64 of the gzip bytes)',
      path: '/v1/compress/gzip',
      body: { input: 'hello, world' },
      data: {
        algorithm: 'gzip',
        level: 6,
        output: 'H4sIAAAAAAAAA8tIzcnJ11Eozy/KSQEAOnKr/wwAAAA=',
        output_encoding: 'base64',
        input_bytes: 12,
        output_bytes: 32,
      },
    },
    {
      summary: "A level above the plan's cap",
      path: '/v1/compress/zstd',
      body: { input: 'hello', level: 22 },
      error: {
        type: 'invalid_request',
        message: 'This plan compresses zstd at levels up to 19; 22 was asked',
        code: 'ERR_PLAN_CAP',
        details: { cap: 'compression_zstd_max_level', max: 19, requested: 22 },
      },
    },
  ],
})
