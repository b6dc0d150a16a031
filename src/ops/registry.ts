import type { z } from 'zod'
import { ownBytes } from '../lib/own-bytes.ts'
import { base64Decode, base64Encode } from './base64/base64.ts'
import { decodeBody, encodeBody } from './base64/schema.ts'
import { cronParse } from './cron/op.ts'
import { cronParseBody } from './cron/schema.ts'
import { hash } from './hash/hash.ts'
import { hashBody } from './hash/schema.ts'
import { hmac, verifyHmac } from './hmac/hmac.ts'
import { hmacBody, hmacVerifyBody } from './hmac/schema.ts'
import { generateNanoids } from './id/nanoid.ts'
import { nanoidBody, uuidBody, uuidInspectBody } from './id/schema.ts'
import { generateUuids } from './id/uuid.ts'
import { inspectUuid } from './id/uuid-inspect.ts'
import { jsonDiff } from './json/diff/diff.ts'
import { jsonDiffBody } from './json/diff/schema.ts'
import { formatResultJson, outputBytes } from './json/format/envelope.ts'
import { formatJson } from './json/format/format.ts'
import { formatBody } from './json/format/schema.ts'
import { parseJsonExact } from './json/number.ts'
import { applyJsonPatch } from './json/patch/patch.ts'
import { patchBody } from './json/patch/schema.ts'
import { decodeJwt } from './jwt/decode.ts'
import { inspectJwt } from './jwt/inspect.ts'
import { jwtDecodeBody, jwtInspectBody, jwtSignBody, jwtVerifyBody } from './jwt/schema.ts'
import { signJwt } from './jwt/sign.ts'
import { verifyJwt } from './jwt/verify.ts'
import { textDecode, textEncode } from './text/codecs.ts'
import { inspectText } from './text/inspect.ts'
import { normalizeText } from './text/normalize.ts'
import { codecBody, inspectBody, normalizeBody } from './text/schema.ts'
import { timestampBody } from './time/schema.ts'
import { timestamp } from './time/timestamp.ts'
import { buildUrl } from './url/build.ts'
import { modifyUrl } from './url/modify.ts'
import { parseUrl } from './url/parse.ts'
import { buildQuery, parseQuery } from './url/query.ts'
import { queryBuildBody, queryParseBody, urlBuildBody, urlModifyBody, urlParseBody } from './url/schema.ts'

// biome-ignore lint/suspicious/noExplicitAny: each entry keeps its own precise signature; this is the common shape
type AnyOp = (input: any) => unknown

export interface OpSpec<F extends AnyOp = AnyOp> {
  // the request body's schema, for ops whose large bodies are parsed and validated on the worker
  body?: z.ZodType
  run: F
  // The body is parsed with parseJsonExact (src/ops/json/number.ts): numbers keep their exact text.
  exactNumbers?: boolean
  // The answer as raw bytes (Accept: application/octet-stream), for ops that offer one: made where the op
  // ran, so a large answer is never encoded on the event loop. Always an ArrayBuffer of its own (it is
  // moved off the thread, never copied).
  octets?: (result: Awaited<ReturnType<F>>) => Uint8Array
  // The result's JSON text as UTF-8 bytes, for an op that makes it quicker than JSON.stringify and an
  // encoder would (json.format escapes the bytes it printed rather than its output string); undefined
  // leaves it to them. Used where the answer is serialized on a pool thread.
  jsonBytes?: (result: Awaited<ReturnType<F>>) => Uint8Array | undefined
}

interface Extra<F extends AnyOp> {
  body?: z.ZodType
  exactNumbers?: boolean
  octets?: (result: Awaited<ReturnType<F>>) => Uint8Array
  jsonBytes?: (result: Awaited<ReturnType<F>>) => Uint8Array | undefined
}

function op<F extends AnyOp>(run: F, extra: Extra<F> = {}): OpSpec<F> {
  return { run, ...extra }
}

// Every operation by name: the same functions run inline, on worker threads (workers/entry.ts) and in
// jobs. Where each may run inline is exec's decision, from its cost model (src/exec/costs.ts).
export const OPERATIONS = {
  // hash and hmac: the algorithm joins the body from the path (the route's `with`, src/http/v1/)
  hash: op(hash, { body: hashBody, octets: (result) => ownBytes(Buffer.from(result.digest, 'hex')) }),
  hmac: op(hmac, { body: hmacBody }),
  'hmac.verify': op(verifyHmac, { body: hmacVerifyBody }),
  'jwt.decode': op(decodeJwt, { body: jwtDecodeBody }),
  'jwt.inspect': op(inspectJwt, { body: jwtInspectBody }),
  'jwt.verify': op(verifyJwt, { body: jwtVerifyBody }),
  'jwt.sign': op(signJwt, { body: jwtSignBody }),
  'base64.encode': op(base64Encode, {
    body: encodeBody,
    octets: (result) => ownBytes(Buffer.from(result.output, 'latin1')),
  }),
  // raw bytes: asked for with output_encoding base64 (the route's `with`), then decoded once more here
  'base64.decode': op(base64Decode, {
    body: decodeBody,
    octets: (result) => ownBytes(Buffer.from(result.output, 'base64')),
  }),
  'text.encode': op(textEncode, { body: codecBody }),
  'text.decode': op(textDecode, { body: codecBody }),
  'text.normalize': op(normalizeText, { body: normalizeBody }),
  'text.inspect': op(inspectText, { body: inspectBody }),
  'url.parse': op(parseUrl, { body: urlParseBody }),
  'url.build': op(buildUrl, { body: urlBuildBody }),
  'url.modify': op(modifyUrl, { body: urlModifyBody }),
  'url.query.parse': op(parseQuery, { body: queryParseBody }),
  'url.query.build': op(buildQuery, { body: queryBuildBody }),
  'json.format': op(formatJson, {
    body: formatBody,
    octets: (result) => ownBytes(outputBytes(result)),
    jsonBytes: formatResultJson,
  }),
  'json.diff': op(jsonDiff, { body: jsonDiffBody, exactNumbers: true }),
  'json.patch': op(applyJsonPatch, { body: patchBody, exactNumbers: true }),
  'time.timestamp': op(timestamp, { body: timestampBody }),
  'id.uuid': op(generateUuids, { body: uuidBody }),
  'id.uuid.inspect': op(inspectUuid, { body: uuidInspectBody }),
  'id.nanoid': op(generateNanoids, { body: nanoidBody }),
  'cron.parse': op(cronParse, { body: cronParseBody }),
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

// Whether a large body for this op is parsed and validated on the worker (OpSpec.body).
export function parsesOnWorker(name: OpName): boolean {
  return (OPERATIONS[name] as OpSpec).body !== undefined
}

export function isOpName(name: string): name is OpName {
  return Object.hasOwn(OPERATIONS, name)
}

// The op's answer as raw bytes (OpSpec.octets); for routes that answer Accept: application/octet-stream.
export function octetsOf<N extends OpName>(name: N, result: OpOutput<N>): Uint8Array {
  const octets = (OPERATIONS[name] as OpSpec).octets
  if (!octets) throw new Error(`${name} has no raw-bytes answer`)
  return octets(result)
}

// Whether the op can answer raw bytes (OpSpec.octets).
export function hasOctets(name: OpName): boolean {
  return (OPERATIONS[name] as OpSpec).octets !== undefined
}
