import { z } from 'zod'
import { ownBytes } from '../../lib/own-bytes.ts'
import { defineOp } from '../define.ts'
import { HELD_ANSWER_LIMIT } from '../stream-step.ts'
import { algorithmOf, decompress } from './compression.ts'
import { algorithmParam, decompressBody, decompressQuery, decompressResult } from './schema.ts'
import { decompressStep } from './stream.ts'
import { OUTPUT_BYTES_CAP, RATIO_CAP, ZSTD_WINDOW_CAP } from './types.ts'
import { gzipBomb } from './worst.ts'

const MiB = 1024 * 1024

export default defineOp({
  name: 'compression.decompress',
  family: 'compression',
  http: {
    path: '/v1/decompress/:algorithm',
    params: z.object({ algorithm: algorithmParam }),
    query: decompressQuery,
    operationId: 'decompress',
    summary: 'Decompress bytes: gzip, deflate, deflate-raw, brotli, zstd',
    description:
      'JSON body (the compressed bytes in input_encoding, Base64 by default; the answer in output_encoding), ' +
      "or a raw application/octet-stream body decompressed as it streams on the plan's pool. Send Accept: " +
      'application/octet-stream for the raw bytes, streamed at constant memory; a JSON answer holds at most ' +
      "64 MiB of output (ERR_COMPUTE_LIMIT past it). A bomb is refused, not expanded: output past the plan's " +
      'compression_max_output_bytes, or past compression_max_ratio times the input read once over 512 KiB, or a ' +
      'zstd window over compression_zstd_max_window_log, is 422 ERR_PLAN_CAP naming the cap. Truncated or ' +
      "corrupt data, or bytes after its end (gzip's zero padding aside), is 400 ERR_INVALID_COMPRESSED_DATA " +
      'with the offset. Concatenated gzip members and zstd frames decode to the concatenation. A refusal after ' +
      'the first MiB of a raw answer breaks the answer off (connection reset on HTTP/1.1, RST_STREAM on HTTP/2).',
    errors: [
      'ERR_UNSUPPORTED_ALGORITHM',
      'ERR_INVALID_ENCODING',
      'ERR_INVALID_COMPRESSED_DATA',
      'ERR_PLAN_CAP',
      'ERR_COMPUTE_LIMIT',
    ],
  },
  with: (params: { algorithm: string }) => ({ algorithm: params.algorithm }),
  body: decompressBody,
  response: decompressResult,
  run: decompress,
  caps: {
    [OUTPUT_BYTES_CAP]: {
      free: 16 * MiB,
      pro: 1024 * MiB,
      business: 8192 * MiB,
      describe: 'Most bytes one decompression may output',
    },
    [RATIO_CAP]: {
      free: 100,
      pro: 250,
      business: 1000,
      describe: 'Most times its input one decompression may expand to, once past its first 512 KiB of output',
    },
    [ZSTD_WINDOW_CAP]: {
      free: 23,
      pro: 27,
      business: 27,
      describe: 'Largest zstd window (log2 bytes) a frame may ask to decompress: 23 is 8 MiB, 27 is 128 MiB',
    },
  },
  // how far one input byte expands is known only by decoding it: always the pool's
  cost: { worst: 'a gzip bomb (concatenated members of zeros)', usPerKiB: 1000, heavy: () => true },
  worst: (bytes) => ({
    algorithm: 'gzip',
    input: gzipBomb(Math.floor((bytes * 3) / 4) - 64).toString('base64'),
  }),
  octets: {
    with: { output_encoding: 'base64' },
    bytes: (result) => ownBytes(Buffer.from(result.output, 'base64')),
  },
  stream: {
    options: ({ params, query }) => ({
      algorithm: algorithmOf(params.algorithm!),
      output_encoding: query.output_encoding,
    }),
    step: decompressStep,
    jsonBodyLimit: HELD_ANSWER_LIMIT,
  },
  examples: [
    {
      summary: 'gunzip to text',
      path: '/v1/decompress/gzip',
      body: { input: 'H4sIAAAAAAAAA8tIzcnJ11Eozy/KSQEAOnKr/wwAAAA=', output_encoding: 'utf8' },
      data: {
        algorithm: 'gzip',
        output: 'hello, world',
        output_encoding: 'utf8',
        input_bytes: 32,
        output_bytes: 12,
        valid_utf8: true,
      },
    },
    {
      summary: 'Truncated data is refused with the offset where it ends',
      path: '/v1/decompress/gzip',
      body: { input: 'H4sIAAAAAAAAA8tIzcnJ11Eozy/KSQEAOnKr/w==' },
      error: {
        type: 'invalid_request',
        message: 'Position 28: the gzip data ends early, at byte 28: it is truncated',
        code: 'ERR_INVALID_COMPRESSED_DATA',
        details: { algorithm: 'gzip', offset: 28, reason: 'truncated' },
      },
    },
  ],
})
