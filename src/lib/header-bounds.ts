import { AppError } from '../errors.ts'

// The most of each request header the gateway parses, checked before it is parsed (issue 36: 40 requests
// with a 60 KB `Accept: a/b,a/b,…`, which HTTP/2 allows, held the event loop for 1.3-2 s of another
// workspace's request; Negotiator took ~30 ms a request). Node admits 16 KiB of headers in all over HTTP/1.1
// and about 64 KiB over HTTP/2 (a header list over 65,535 bytes is reset); each bound here is far below that and
// far above what a client sends. What a header over its bound means is decided where it is read: refused
// with 431 ERR_HEADER_TOO_LARGE, or read as absent where its standard allows (docs/decisions.md, "Request
// headers").
export interface HeaderBound {
  // as clients write it, for messages
  name: string
  // most characters (Node reads header values as latin1: one per byte)
  bytes: number
  // most elements of a list header, counted by `separator`
  items?: number
  separator?: string
}

export const HEADER_BOUNDS = {
  // browsers send ~150 bytes and ≤ 10 ranges
  accept: { name: 'Accept', bytes: 1024, items: 32, separator: ',' },
  // `gzip, deflate, br, zstd`
  'accept-encoding': { name: 'Accept-Encoding', bytes: 256, items: 16, separator: ',' },
  // `Bearer ` and an API key (47 characters) or ADMIN_TOKEN (at most 512)
  authorization: { name: 'Authorization', bytes: 1024 },
  // a media type and its parameters
  'content-type': { name: 'Content-Type', bytes: 256, items: 8, separator: ';' },
  // every cookie of the site's host (localhost gathers other apps' too): HTTP/1.1's whole limit, and a
  // browser's most cookies per host (Chrome: 180)
  cookie: { name: 'Cookie', bytes: 16 * 1024, items: 180, separator: ';' },
  // 1 to 255 printable characters, as Stripe allows (src/lib/idempotency-seal.ts)
  'idempotency-key': { name: 'Idempotency-Key', bytes: 255 },
  // W3C Trace Context: version 00 is 55 characters; later versions may add fields
  traceparent: { name: 'traceparent', bytes: 512 },
  // W3C Trace Context: at most 32 list members
  tracestate: { name: 'tracestate', bytes: 4096, items: 32, separator: ',' },
  // the hops nearest to the gateway, which TRUST_PROXY may trust (more than 32 proxies is no deployment)
  'x-forwarded-for': { name: 'X-Forwarded-For', bytes: 2048, items: 32, separator: ',' },
  // the console's write checks (src/http/console/csrf.ts)
  origin: { name: 'Origin', bytes: 2048 },
  referer: { name: 'Referer', bytes: 2048 },
  'x-csrf-token': { name: 'X-CSRF-Token', bytes: 256 },
  // a DNS name (253) and a port
  host: { name: 'Host', bytes: 300 },
} as const satisfies Record<string, HeaderBound>

export type BoundedHeader = keyof typeof HEADER_BOUNDS

// The refusal of a header over its bound: 431, naming it and its bound (RFC 6585 §5).
export function headerTooLarge(name: BoundedHeader): AppError {
  const bound: HeaderBound = HEADER_BOUNDS[name]
  const items = bound.items === undefined ? '' : ` and ${bound.items} elements`
  return new AppError(
    'ERR_HEADER_TOO_LARGE',
    `The ${bound.name} header is larger than this API reads (at most ${bound.bytes} bytes${items}).`,
    {
      header: bound.name,
      max_bytes: bound.bytes,
      ...(bound.items === undefined ? {} : { max_items: bound.items }),
    },
  )
}

// Whether a header's value is within its bound: its length first, then (bounded by it) its elements.
export function withinBound(value: string, bound: HeaderBound): boolean {
  if (value.length > bound.bytes) return false
  if (bound.items === undefined || bound.separator === undefined) return true
  let items = 1
  for (let at = value.indexOf(bound.separator); at !== -1; at = value.indexOf(bound.separator, at + 1)) {
    if (++items > bound.items) return false
  }
  return true
}

// The last elements of a list header within its bound: at most `items` of them and `bytes` characters,
// whole elements only (undefined when even the last one alone is over). For X-Forwarded-For, where the
// elements nearest the end are the ones the gateway's own proxies appended.
export function lastWithinBound(value: string, bound: Required<HeaderBound>): string | undefined {
  let start = value.length
  let kept = 0
  while (kept < bound.items && start > 0) {
    const at = value.lastIndexOf(bound.separator, start - 1)
    const from = at + 1
    if (value.length - from > bound.bytes) break
    start = at === -1 ? 0 : at
    kept++
  }
  if (kept === 0) return undefined
  return value.slice(start === 0 ? 0 : start + 1).trimStart()
}
