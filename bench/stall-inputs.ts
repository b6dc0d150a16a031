import type { OpName } from '../src/ops/registry.ts'

// Worst-case inputs, per op, of about `bytes` bytes of JSON body: the shapes that cost the most per byte
// within each op's budgets (docs/dispatch.md#cost-models). bench/cost-models.ts times them at each op's
// inline bound; bench/stall.ts sends them at each plan's limit while a canary measures the event loop.

const MARKS = ['\u0345', '\u0301', '\u031B', '\u0316', '\u0334']

function fill(unit: string, bytes: number): string {
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

export function tokenOf(payloadBytes: number): string {
  const header = b64url(JSON.stringify({ alg: 'HS512', typ: 'JWT' }))
  const payload = b64url(JSON.stringify({ sub: 'x', data: 'y'.repeat(Math.max(1, payloadBytes - 20)) }))
  return `${header}.${payload}.${'A'.repeat(86)}`
}

export function nestedArrays(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth)
}

// The worst-case request body of an op at about `bytes` bytes.
export function worstCase(op: OpName, bytes: number): unknown {
  switch (op) {
    case 'hash':
      return { algorithm: 'sha512', input: fill('x', bytes) }
    case 'hmac':
      return { algorithm: 'sha512', input: fill('x', bytes), key: 'k' }
    case 'hmac.verify':
      return { algorithm: 'sha512', input: fill('x', bytes), key: 'k', digest: '00'.repeat(64) }
    case 'jwt.decode':
    case 'jwt.inspect':
      return { token: tokenOf(Math.floor(bytes * 0.74)) }
    case 'jwt.verify':
      return { token: tokenOf(Math.floor(bytes * 0.74)), secret: 's'.repeat(64) }
    case 'jwt.sign':
      return { algorithm: 'HS512', secret: 's'.repeat(64), payload: { data: fill('y', bytes - 64) } }
    case 'base64.encode':
      return { input: fill('é', bytes / 2), variant: 'url' }
    case 'base64.decode':
      return { input: fill('QUJD', bytes), variant: 'url' }
    case 'text.encode':
      // an astral character: 2 UTF-16 units, 4 bytes of UTF-8
      return { input: fill('😀', bytes / 2), format: 'unicode_escape' }
    case 'text.decode':
      return { input: fill('&#x1F600;', bytes), format: 'html' }
    case 'text.normalize':
      return { input: markRuns(bytes, 30), form: 'NFKC' }
    case 'text.inspect': {
      // a family emoji: 11 UTF-16 units, 25 bytes of UTF-8
      const family = '👩‍👩‍👧‍👦'
      return { input: fill(family, Math.floor(bytes / 25) * family.length) }
    }
    case 'url.parse':
      return { url: `https://example.com/?${fill('a=1&', bytes - 30)}` }
    case 'url.build':
      return {
        protocol: 'https',
        hostname: 'example.com',
        query: Object.fromEntries(Array.from({ length: Math.floor(bytes / 12) }, (_, i) => [`k${i}`, 'v'])),
      }
    case 'url.modify':
      return {
        url: `https://example.com/?${fill('a=1&', bytes - 40)}`,
        query: { set: { b: '2' } },
        sort_query: true,
      }
    case 'url.query.parse':
      return { query: fill('a=%41&', bytes) }
    case 'url.query.build':
      return {
        params: Object.fromEntries(
          Array.from({ length: Math.floor(bytes / 12) }, (_, i) => [`k${i}`, 'v é']),
        ),
      }
    case 'json.format': {
      // inline: as much pretty output as the inline estimate lets through (nesting at indent 8, then
      // one value a line); on the pool the output budget stops it (16x the input, 1 MiB at least)
      if (bytes <= 64 * 1024) {
        const text = `"${fill('x', Math.max(1, bytes - 4 * 1024 - 200))}"`
        return { input: `[${nestedArrays(40)},${fill('0,', Math.min(bytes, 3584))}${text}]`, indent: 8 }
      }
      return { input: `[${fill(`${nestedArrays(400)},`, bytes - 20)}0]`, indent: 8 }
    }
    case 'json.diff':
      // a reversed array of numbers: every item moved, the matching quadratic in the items
      return sized(bytes, (n) => {
        const left = Array.from({ length: n }, (_, i) => i)
        return { left, right: [...left].reverse(), output: 'both' }
      })
    case 'json.patch':
      return sized(bytes, (count) => ({
        document: { a: [0] },
        patch: Array.from({ length: count }, (_, i) =>
          i % 2 === 0 ? { op: 'add', path: '/a/0', value: i } : { op: 'remove', path: '/a/0' },
        ),
      }))
    // ops whose schema bounds their work: the most they are asked for, and past a few KiB a body their
    // schema refuses only once it is parsed (a field of escaped text: the parse is the worst case)
    case 'time.timestamp':
      return bounded({ value: '1710055800123', timezone: 'America/New_York' }, bytes)
    case 'id.uuid':
      return bounded({ version: 7, count: 1000 }, bytes)
    case 'id.uuid.inspect':
      return bounded({ uuid: '2ed6657d-e927-568b-95e1-2665a8aea6a2' }, bytes)
    case 'id.nanoid':
      return bounded({ size: 255, count: 1000 }, bytes)
    case 'cron.parse':
      return bounded({ expression: '0 0 29 2 1', timezone: 'America/New_York', count: 100 }, bytes)
  }
}

// The input of `make(n)` with the largest n whose JSON body stays within `bytes` (n ≥ 1).
function sized(bytes: number, make: (n: number) => unknown): unknown {
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

function bounded(input: Record<string, unknown>, bytes: number): Record<string, unknown> {
  if (bytes <= 4096) return input
  // "é\n" is 4 bytes of body once stringified (é in UTF-8, the newline escaped)
  return { ...input, padding: fill('é\n', Math.floor(bytes / 2)) }
}
