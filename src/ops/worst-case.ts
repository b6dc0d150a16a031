// Helpers for the worst-case inputs ops declare (OpDescriptor.worst, src/ops/define.ts): the shapes that cost
// the most per byte within each op's budgets (docs/dispatch.md#cost-models). bench/cost-models.ts times them
// at each op's inline bound; bench/stall.ts sends them at each plan's limit while a canary watches the
// event loop.

const MARKS = ['\u0345', '\u0301', '\u031B', '\u0316', '\u0334']

// `unit` repeated to about `bytes` characters (at least once)
export function fill(unit: string, bytes: number): string {
  return unit.repeat(Math.max(1, Math.floor(bytes / unit.length)))
}

// runs of `run` combining marks in descending canonical classes, each after a base letter
export function markRuns(bytes: number, run: number): string {
  const one = `a${Array.from({ length: run }, (_, i) => MARKS[i % MARKS.length]).join('')}`
  // each mark is 2 bytes of UTF-8
  return fill(one, Math.floor(bytes / (2 * run + 1)) * one.length)
}

function b64url(text: string): string {
  return Buffer.from(text).toString('base64url')
}

// an HS512 token with a payload of about `payloadBytes` bytes (its signature is not valid)
export function tokenOf(payloadBytes: number): string {
  const header = b64url(JSON.stringify({ alg: 'HS512', typ: 'JWT' }))
  const payload = b64url(JSON.stringify({ sub: 'x', data: 'y'.repeat(Math.max(1, payloadBytes - 20)) }))
  return `${header}.${payload}.${'A'.repeat(86)}`
}

export function nestedArrays(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth)
}

// The input of `make(n)` with the largest n whose JSON body stays within `bytes` (n ≥ 1).
export function sized<T>(bytes: number, make: (n: number) => T): T {
  let low = 1
  let high = 2
  while (JSON.stringify(make(high)).length <= bytes) high *= 2
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2)
    if (JSON.stringify(make(mid)).length <= bytes) low = mid
    else high = mid
  }
  return make(low)
}

// For ops whose schema bounds their work: the most they are asked for, and past a few KiB a body their
// schema refuses only once it is parsed (a field of escaped text: the parse is the worst case).
export function bounded<T extends Record<string, unknown>>(input: T, bytes: number): T {
  if (bytes <= 4096) return input
  // "é\n" is 4 bytes of body once stringified (é in UTF-8, the newline escaped)
  return { ...input, padding: fill('é\n', Math.floor(bytes / 2)) }
}

// The cost model of ops whose schema bounds their input (time, IDs, cron, UUID inspection): their own work is
// microseconds, but a body is parsed before its schema can refuse it, and JSON.parse of a hostile body costs
// up to ~8 µs per KiB (deep nesting, escapes): a large body for them goes to the pool like any other.
export const BODY_PARSE_COST = { worst: 'parsing a body the schema refuses (escaped text)', usPerKiB: 8 }
