import type { z } from 'zod'
import { base64Decode, base64Encode } from './base64/base64.ts'
import { cronParse } from './cron/op.ts'
import { hash } from './hash/hash.ts'
import { hmac, verifyHmac } from './hmac/hmac.ts'
import { generateNanoids } from './id/nanoid.ts'
import { generateUuids } from './id/uuid.ts'
import { inspectUuid } from './id/uuid-inspect.ts'
import { jsonDiff } from './json/diff/diff.ts'
import { jsonDiffBody } from './json/diff/schema.ts'
import { formatJson } from './json/format/format.ts'
import { parseJsonExact } from './json/number.ts'
import { applyJsonPatch } from './json/patch/patch.ts'
import { patchBody } from './json/patch/schema.ts'
import { decodeJwt } from './jwt/decode.ts'
import { inspectJwt } from './jwt/inspect.ts'
import { signJwt } from './jwt/sign.ts'
import { verifyJwt } from './jwt/verify.ts'
import { textDecode, textEncode } from './text/codecs.ts'
import { inspectText } from './text/inspect.ts'
import { normalizeText } from './text/normalize.ts'
import { timestamp } from './time/timestamp.ts'
import { buildUrl } from './url/build.ts'
import { modifyUrl } from './url/modify.ts'
import { parseUrl } from './url/parse.ts'
import { buildQuery, parseQuery } from './url/query.ts'

const KiB = 1024
const NEVER = Number.POSITIVE_INFINITY

// biome-ignore lint/suspicious/noExplicitAny: each entry keeps its own precise signature; this is the common shape
type AnyOp = (input: any) => unknown

export interface OpSpec<F extends AnyOp = AnyOp> {
  // the request body's schema, for ops whose large bodies are parsed and validated on the worker
  body?: z.ZodType
  run: F
  // Request bodies of at least this many bytes run on the plan's worker pool; smaller ones inline.
  // Rule (docs/dispatch.md, figures from bench/dispatch.ts): inline only what runs in about half a
  // millisecond or less, so no request holds the event loop longer than that; a pool hop costs 0.05-0.2 ms.
  poolAbove: number
  // Work that is heavy whatever its size (e.g. RSA signing).
  heavy?: (input: Parameters<F>[0]) => boolean
  // The body is parsed with parseJsonExact (src/ops/json/number.ts): numbers keep their exact text.
  exactNumbers?: boolean
}

function op<F extends AnyOp>(
  run: F,
  poolAbove: number,
  extra: { heavy?: (input: Parameters<F>[0]) => boolean; body?: z.ZodType; exactNumbers?: boolean } = {},
): OpSpec<F> {
  return { run, poolAbove, ...extra }
}

// Every operation by name: the same functions run inline, on worker threads (src/exec/op-thread.ts) and in jobs.
export const OPERATIONS = {
  hash: op(hash, 512 * KiB),
  hmac: op(hmac, 512 * KiB),
  'hmac.verify': op(verifyHmac, 512 * KiB),
  'jwt.decode': op(decodeJwt, 256 * KiB),
  'jwt.inspect': op(inspectJwt, 256 * KiB),
  'jwt.verify': op(verifyJwt, 256 * KiB),
  'jwt.sign': op(signJwt, 256 * KiB, { heavy: (input) => /^(RS|PS)/.test(String(input.algorithm)) }),
  'base64.encode': op(base64Encode, 256 * KiB),
  'base64.decode': op(base64Decode, 256 * KiB),
  'text.encode': op(textEncode, 64 * KiB),
  'text.decode': op(textDecode, 64 * KiB),
  'text.normalize': op(normalizeText, 64 * KiB),
  'text.inspect': op(inspectText, 16 * KiB),
  'url.parse': op(parseUrl, 64 * KiB),
  'url.build': op(buildUrl, 64 * KiB),
  'url.modify': op(modifyUrl, 64 * KiB),
  'url.query.parse': op(parseQuery, 64 * KiB),
  'url.query.build': op(buildQuery, 64 * KiB),
  'json.format': op(formatJson, 32 * KiB),
  'json.diff': op(jsonDiff, 16 * KiB, { body: jsonDiffBody, exactNumbers: true }),
  'json.patch': op(applyJsonPatch, 32 * KiB, { body: patchBody, exactNumbers: true }),
  'time.timestamp': op(timestamp, NEVER),
  'id.uuid': op(generateUuids, NEVER),
  'id.uuid.inspect': op(inspectUuid, NEVER),
  'id.nanoid': op(generateNanoids, NEVER),
  'cron.parse': op(cronParse, NEVER),
} as const

export type OpName = keyof typeof OPERATIONS
export type OpInput<N extends OpName> = Parameters<(typeof OPERATIONS)[N]['run']>[0]
export type OpOutput<N extends OpName> = Awaited<ReturnType<(typeof OPERATIONS)[N]['run']>>

// Whether a body for this op keeps its numbers exact (see OpSpec.exactNumbers).
export function exactNumbers(name: string): boolean {
  return isOpName(name) && (OPERATIONS[name] as OpSpec).exactNumbers === true
}

// Parses a JSON body meant for this op: exactly (numbers as written) where the op keeps them, else plainly.
export function parseOpBody(name: string | undefined, text: string): unknown {
  return name !== undefined && exactNumbers(name) ? parseJsonExact(text) : JSON.parse(text)
}

export function isOpName(name: string): name is OpName {
  return Object.hasOwn(OPERATIONS, name)
}
