import type { z } from 'zod'
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
import { formatIsHeavy } from './json/format/cost.ts'
import { formatResultJson } from './json/format/envelope.ts'
import { formatJson } from './json/format/format.ts'
import { formatBody } from './json/format/schema.ts'
import { parseJsonExact } from './json/number.ts'
import { applyJsonPatch } from './json/patch/patch.ts'
import { patchBody } from './json/patch/schema.ts'
import { decodeJwt } from './jwt/decode.ts'
import { inspectJwt } from './jwt/inspect.ts'
import { jwtDecodeBody, jwtInspectBody, jwtSignBody, jwtVerifyBody } from './jwt/schema.ts'
import { signJwt } from './jwt/sign.ts'
import { verifyIsHeavy, verifyJwt } from './jwt/verify.ts'
import { textDecode, textEncode } from './text/codecs.ts'
import { inspectText } from './text/inspect.ts'
import { nonStarterRun, normalizeText, STREAM_SAFE_RUN } from './text/normalize.ts'
import { codecBody, inspectBody, normalizeBody } from './text/schema.ts'
import { timestampBody } from './time/schema.ts'
import { timestamp } from './time/timestamp.ts'
import { buildUrl } from './url/build.ts'
import { modifyUrl } from './url/modify.ts'
import { parseUrl } from './url/parse.ts'
import { buildQuery, parseQuery } from './url/query.ts'
import { queryBuildBody, queryParseBody, urlBuildBody, urlModifyBody, urlParseBody } from './url/schema.ts'

const KiB = 1024

// biome-ignore lint/suspicious/noExplicitAny: each entry keeps its own precise signature; this is the common shape
type AnyOp = (input: any) => unknown

// The cost model of an op (docs/dispatch.md#cost-models): how much event-loop time its worst case takes
// per KiB of body, within the op's budgets and the plan limits, measured by bench/cost-models.ts. "Worst
// case" is the input shape that costs the most per byte (deep nesting at indent 8 for format, runs of 30
// combining marks for normalize...), not a typical input: inline means bounded work, not small bytes.
export interface CostModel {
  worst: string
  usPerKiB: number
}

// No inline request may hold the event loop longer than this in its worst case.
export const INLINE_BUDGET_US = 1000

// The inline bound a cost model allows: the largest power-of-two number of KiB whose worst case fits in
// INLINE_BUDGET_US (1 KiB at least: below that the fixed cost of a request dominates).
export function inlineBound(cost: CostModel): number {
  const kib = Math.max(1, 2 ** Math.floor(Math.log2(INLINE_BUDGET_US / cost.usPerKiB)))
  return kib * KiB
}

export interface OpSpec<F extends AnyOp = AnyOp> {
  // the request body's schema, for ops whose large bodies are parsed and validated on the worker
  body?: z.ZodType
  run: F
  // what its worst case costs per KiB of body
  cost: CostModel
  // Request bodies of at least this many bytes run on the plan's worker pool; smaller ones inline.
  // Derived from `cost` (inlineBound): a pool hop costs 0.05-0.2 ms, so below the bound the pool would
  // only add latency, and above it the worst case would hold the loop longer than INLINE_BUDGET_US.
  poolAbove: number
  // Work whose cost the body's size does not tell (amplification, a quadratic step, public-key crypto):
  // true sends it to the pool whatever its size. Runs on the event loop on the parsed input, so it must
  // be one linear pass at most (and none once the input is past poolAbove).
  heavy?: (input: Parameters<F>[0]) => boolean
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
  heavy?: (input: Parameters<F>[0]) => boolean
  body?: z.ZodType
  exactNumbers?: boolean
  octets?: (result: Awaited<ReturnType<F>>) => Uint8Array
  jsonBytes?: (result: Awaited<ReturnType<F>>) => Uint8Array | undefined
}

// A Buffer made from a string may be a slice of Node's shared 8 KiB pool, which must not be moved to
// another thread: such a small one is copied into a buffer of its own.
function ownBytes(bytes: Buffer): Uint8Array {
  const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
  return owned ? bytes : new Uint8Array(bytes)
}

function op<F extends AnyOp>(run: F, cost: CostModel | 'bounded', extra: Extra<F> = {}): OpSpec<F> {
  const model = cost === 'bounded' ? COST.bodyParse : cost
  return { run, cost: model, poolAbove: inlineBound(model), ...extra }
}

// Measured worst cases (bench/cost-models.ts; µs per KiB, rounded up; docs/dispatch.md has the table).
const COST = {
  // ops whose schema bounds their input (time, IDs, cron, UUID inspection): their own work is microseconds,
  // but a body is parsed before its schema can refuse it, and JSON.parse of a hostile body costs up to
  // ~8 µs per KiB (deep nesting, escapes): a large body for them goes to the pool like any other
  bodyParse: { worst: 'parsing a body the schema refuses (escaped text)', usPerKiB: 8 },
  hash: { worst: 'sha512 of ASCII text', usPerKiB: 6 },
  hmac: { worst: 'HMAC-SHA-512 of ASCII text', usPerKiB: 7 },
  jwtDecode: { worst: 'a token with a large payload', usPerKiB: 10 },
  jwtVerify: { worst: 'HS512 over a large payload (PEM/JWK/JWKS keys: heavy)', usPerKiB: 16 },
  jwtSign: { worst: 'HS512 of a large payload (RS/PS: heavy)', usPerKiB: 60 },
  base64: { worst: 'encode 2-byte UTF-8 text, url variant', usPerKiB: 9 },
  textEncode: { worst: 'unicode_escape of astral characters', usPerKiB: 80 },
  textDecode: { worst: 'html numeric references of astral characters', usPerKiB: 28 },
  normalize: { worst: 'NFKC of runs of 30 combining marks (longer runs: heavy)', usPerKiB: 56 },
  inspect: { worst: 'grapheme segmentation of emoji ZWJ sequences', usPerKiB: 90 },
  url: { worst: 'a query of thousands of short parameters', usPerKiB: 240 },
  queryBuild: { worst: 'thousands of short parameters', usPerKiB: 90 },
  urlModify: { worst: 'set and sort a query of thousands of parameters', usPerKiB: 800 },
  format: { worst: 'pretty at indent 8 up to the 64 KiB inline output estimate (more: heavy)', usPerKiB: 30 },
  diff: { worst: 'a reversed array of numbers (every item moved)', usPerKiB: 1000 },
  patch: { worst: 'thousands of add/remove ops on an array (copy: heavy)', usPerKiB: 48 },
} satisfies Record<string, CostModel>

// Ops whose inputs the schema bounds still do work in proportion to what they are asked for (measured:
// 1,000 v7 UUIDs 11 ms, 1,000 nanoids of 255 symbols 105 ms, 100 runs of a rare cron schedule 1.8 ms).
const INLINE_UUIDS = 50
const INLINE_NANOID_SYMBOLS = 2_000
const INLINE_CRON_RUNS = 25

// The heavy predicates of the cost models: content the per-KiB figure does not cover.
function patchIsHeavy(input: { patch?: unknown }): boolean {
  // a large body arrives unparsed (RawJson) and goes to the pool by size anyway
  if (!Array.isArray(input.patch)) return true
  return input.patch.some((o) => typeof o === 'object' && o !== null && (o as { op?: unknown }).op === 'copy')
}

function normalizeIsHeavy(input: { input: string }): boolean {
  if (typeof input.input !== 'string' || input.input.length >= OPERATIONS_POOL_ABOVE.normalize) return true
  return nonStarterRun(input.input, STREAM_SAFE_RUN) > STREAM_SAFE_RUN
}

const OPERATIONS_POOL_ABOVE = {
  normalize: inlineBound(COST.normalize),
  format: inlineBound(COST.format),
}

// Every operation by name: the same functions run inline, on worker threads (src/exec/op-thread.ts) and in jobs.
export const OPERATIONS = {
  // hash and hmac: the algorithm joins the body from the path (the route's `with`, src/http/v1/)
  hash: op(hash, COST.hash, {
    body: hashBody,
    octets: (result) => ownBytes(Buffer.from(result.digest, 'hex')),
  }),
  hmac: op(hmac, COST.hmac, { body: hmacBody }),
  'hmac.verify': op(verifyHmac, COST.hmac, { body: hmacVerifyBody }),
  'jwt.decode': op(decodeJwt, COST.jwtDecode, { body: jwtDecodeBody }),
  'jwt.inspect': op(inspectJwt, COST.jwtDecode, { body: jwtInspectBody }),
  'jwt.verify': op(verifyJwt, COST.jwtVerify, { body: jwtVerifyBody, heavy: verifyIsHeavy }),
  'jwt.sign': op(signJwt, COST.jwtSign, {
    body: jwtSignBody,
    heavy: (input) => /^(RS|PS|ES)/.test(String(input.algorithm)),
  }),
  'base64.encode': op(base64Encode, COST.base64, {
    body: encodeBody,
    octets: (result) => ownBytes(Buffer.from(result.output, 'latin1')),
  }),
  // raw bytes: asked for with output_encoding base64 (the route's `with`), then decoded once more here
  'base64.decode': op(base64Decode, COST.base64, {
    body: decodeBody,
    octets: (result) => ownBytes(Buffer.from(result.output, 'base64')),
  }),
  'text.encode': op(textEncode, COST.textEncode, { body: codecBody }),
  'text.decode': op(textDecode, COST.textDecode, { body: codecBody }),
  'text.normalize': op(normalizeText, COST.normalize, { body: normalizeBody, heavy: normalizeIsHeavy }),
  'text.inspect': op(inspectText, COST.inspect, { body: inspectBody }),
  'url.parse': op(parseUrl, COST.url, { body: urlParseBody }),
  'url.build': op(buildUrl, COST.url, { body: urlBuildBody }),
  'url.modify': op(modifyUrl, COST.urlModify, { body: urlModifyBody }),
  'url.query.parse': op(parseQuery, COST.url, { body: queryParseBody }),
  'url.query.build': op(buildQuery, COST.queryBuild, { body: queryBuildBody }),
  'json.format': op(formatJson, COST.format, {
    body: formatBody,
    heavy: (input) => formatIsHeavy(input, OPERATIONS_POOL_ABOVE.format),
    octets: (result) => ownBytes(Buffer.from(result.output, 'utf8')),
    jsonBytes: formatResultJson,
  }),
  'json.diff': op(jsonDiff, COST.diff, { body: jsonDiffBody, exactNumbers: true }),
  'json.patch': op(applyJsonPatch, COST.patch, { body: patchBody, exactNumbers: true, heavy: patchIsHeavy }),
  'time.timestamp': op(timestamp, 'bounded', { body: timestampBody }),
  'id.uuid': op(generateUuids, 'bounded', {
    body: uuidBody,
    heavy: (input) => (input.count ?? 1) > INLINE_UUIDS,
  }),
  'id.uuid.inspect': op(inspectUuid, 'bounded', { body: uuidInspectBody }),
  'id.nanoid': op(generateNanoids, 'bounded', {
    body: nanoidBody,
    heavy: (input) => (input.count ?? 1) * (input.size ?? 21) > INLINE_NANOID_SYMBOLS,
  }),
  'cron.parse': op(cronParse, 'bounded', {
    body: cronParseBody,
    heavy: (input) => (input.count ?? 5) > INLINE_CRON_RUNS,
  }),
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

// The largest declared body this op runs inline for a plan: the one accessor of the inline bound, so the
// bound's meaning (bytes today, a cost model tomorrow) can change without touching the deciders
// (src/exec/decide.ts).
export function inlineUpTo(name: OpName, _limits?: unknown): number {
  return (OPERATIONS[name] as OpSpec).poolAbove
}

// Whether the op's worst case depends on its input whatever the size (e.g. RSA signing), and so whether
// that input puts it on the pool.
export function heavyInput(name: OpName, input: unknown): boolean {
  const heavy = (OPERATIONS[name] as OpSpec).heavy
  return heavy?.(input) === true
}

export function hasHeavyCase(name: OpName): boolean {
  return (OPERATIONS[name] as OpSpec).heavy !== undefined
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
