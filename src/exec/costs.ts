import { prettyOutputBound } from '../ops/json/format/cost.ts'
import type { JsonFormatInput } from '../ops/json/format/format.ts'
import { verifyIsHeavy } from '../ops/jwt/verify.ts'
import type { OpInput, OpName } from '../ops/registry.ts'
import { nonStarterRun, STREAM_SAFE_RUN } from '../ops/text/normalize.ts'

// Where an op may run inline: exec's decision (src/exec/decide.ts), from each op's cost model. An op
// describes what its work costs (the measures below come from the ops: the output estimate of a pretty
// print, whether a JWT is verified with a public key, the longest run of combining marks); the budgets
// and thresholds are exec's. docs/dispatch.md#cost-models has the table and how it was measured.

const KiB = 1024

// The cost model of an op: how much event-loop time its worst case takes per KiB of body, within the op's
// budgets and the plan limits, measured by bench/cost-models.ts. "Worst case" is the input shape that
// costs the most per byte (deep nesting at indent 8 for format, runs of 30 combining marks for
// normalize...), not a typical input: inline means bounded work, not small bytes.
export interface CostModel {
  worst: string
  usPerKiB: number
}

export interface OpCost<I = unknown> extends CostModel {
  // Work whose cost the body's size does not tell (amplification, a quadratic step, public-key crypto):
  // true sends it to the pool whatever its size. Runs on the event loop on the parsed input, so it must
  // be one linear pass at most (and none once the input is past the inline bound).
  heavy?: (input: I) => boolean
}

// No inline request may hold the event loop longer than this in its worst case.
export const INLINE_BUDGET_US = 1000

// The inline bound a cost model allows: the largest power-of-two number of KiB whose worst case fits in
// INLINE_BUDGET_US (1 KiB at least: below that the fixed cost of a request dominates). A pool hop costs
// 0.05-0.2 ms, so below the bound the pool would only add latency, and above it the worst case would hold
// the loop longer than INLINE_BUDGET_US.
export function inlineBound(cost: CostModel): number {
  const kib = Math.max(1, 2 ** Math.floor(Math.log2(INLINE_BUDGET_US / cost.usPerKiB)))
  return kib * KiB
}

// Measured worst cases (bench/cost-models.ts; µs per KiB, rounded up; docs/dispatch.md has the table).
const MEASURED = {
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

// Inline json/format requests write at most this much pretty output (writing and serializing it takes
// about 1 ms), and sort_keys (which holds and sorts every object) runs inline only for inputs this small
// (measured: bench/cost-models.ts).
export const INLINE_OUTPUT_BYTES = 64 * 1024
const INLINE_SORT_BYTES = 8 * 1024

// The heavy predicates: content the per-KiB figure does not cover.

// sort_keys of more than a few KiB, or a pretty output that may pass INLINE_OUTPUT_BYTES (the op's own
// estimate, one pass that stops counting there); none for inputs that go to the pool by size anyway.
function formatIsHeavy(input: JsonFormatInput): boolean {
  const text = input.input
  if (typeof text !== 'string' || text.length >= inlineBound(MEASURED.format)) return true
  if (input.sort_keys === true && text.length > INLINE_SORT_BYTES) return true
  if (input.mode === 'minify') return false
  return prettyOutputBound(text, input.indent ?? 2, INLINE_OUTPUT_BYTES) > INLINE_OUTPUT_BYTES
}

function patchIsHeavy(input: { patch?: unknown }): boolean {
  // a large body arrives unparsed (RawJson) and goes to the pool by size anyway
  if (!Array.isArray(input.patch)) return true
  return input.patch.some((o) => typeof o === 'object' && o !== null && (o as { op?: unknown }).op === 'copy')
}

function normalizeIsHeavy(input: { input: string }): boolean {
  if (typeof input.input !== 'string' || input.input.length >= inlineBound(MEASURED.normalize)) return true
  return nonStarterRun(input.input, STREAM_SAFE_RUN) > STREAM_SAFE_RUN
}

// Every op's cost model, by name (a new op without one does not type-check).
export const COSTS: { readonly [N in OpName]: OpCost<OpInput<N>> } = {
  hash: MEASURED.hash,
  hmac: MEASURED.hmac,
  'hmac.verify': MEASURED.hmac,
  'jwt.decode': MEASURED.jwtDecode,
  'jwt.inspect': MEASURED.jwtDecode,
  'jwt.verify': { ...MEASURED.jwtVerify, heavy: verifyIsHeavy },
  'jwt.sign': { ...MEASURED.jwtSign, heavy: (input) => /^(RS|PS|ES)/.test(String(input.algorithm)) },
  'base64.encode': MEASURED.base64,
  'base64.decode': MEASURED.base64,
  'text.encode': MEASURED.textEncode,
  'text.decode': MEASURED.textDecode,
  'text.normalize': { ...MEASURED.normalize, heavy: normalizeIsHeavy },
  'text.inspect': MEASURED.inspect,
  'url.parse': MEASURED.url,
  'url.build': MEASURED.url,
  'url.modify': MEASURED.urlModify,
  'url.query.parse': MEASURED.url,
  'url.query.build': MEASURED.queryBuild,
  'json.format': { ...MEASURED.format, heavy: formatIsHeavy },
  'json.diff': MEASURED.diff,
  'json.patch': { ...MEASURED.patch, heavy: patchIsHeavy },
  'time.timestamp': MEASURED.bodyParse,
  'id.uuid': { ...MEASURED.bodyParse, heavy: (input) => (input.count ?? 1) > INLINE_UUIDS },
  'id.uuid.inspect': MEASURED.bodyParse,
  'id.nanoid': {
    ...MEASURED.bodyParse,
    heavy: (input) => (input.count ?? 1) * (input.size ?? 21) > INLINE_NANOID_SYMBOLS,
  },
  'cron.parse': { ...MEASURED.bodyParse, heavy: (input) => (input.count ?? 5) > INLINE_CRON_RUNS },
}

const bounds = new Map<OpName, number>()

// The largest declared body this op runs inline for a plan: the one accessor of the inline bound, so the
// bound's meaning (bytes today, a cost model per plan tomorrow) can change without touching the decider.
export function inlineUpTo(name: OpName, _limits?: unknown): number {
  let bound = bounds.get(name)
  if (bound === undefined) {
    bound = inlineBound(COSTS[name])
    bounds.set(name, bound)
  }
  return bound
}

// Whether the op's worst case depends on its input whatever the size (e.g. RSA signing), and so whether
// that input puts it on the pool.
export function heavyInput(name: OpName, input: unknown): boolean {
  const heavy = (COSTS[name] as OpCost).heavy
  return heavy?.(input) === true
}

export function hasHeavyCase(name: OpName): boolean {
  return (COSTS[name] as OpCost).heavy !== undefined
}
