import type { ErrorCode } from '../../errors.ts'

interface HeaderObject {
  description: string
  schema: Record<string, unknown>
}

const text = { type: 'string' }

// The response headers clients read, as components.headers, and which response carries which. Every
// header an answer can carry is here (test/http/openapi/examples.test.ts compares real answers with the
// document); the descriptions say when a header is sent.
export const HEADERS = {
  'Request-Id': {
    description:
      'The request id: yours if you sent a Request-Id of 8–128 characters from A-Za-z0-9._:-, otherwise ' +
      'req_ and 20 base62 characters. Quote it when reporting a problem.',
    schema: { type: 'string', minLength: 8, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' },
  },
  RateLimit: {
    description:
      'Remaining quota of each policy (IETF httpapi RateLimit header fields, draft-11): ' +
      '`"second";r=9;t=1, "month";r=99990;t=2419200`. On every keyed response except a 401.',
    schema: text,
  },
  'RateLimit-Policy': {
    description:
      'The policies that applied: `"second";q=10;w=1, "workspace-second";q=50;w=1, "month";q=100000;w=2678400`, ' +
      'plus `"key-month"` when the key has its own quota.',
    schema: text,
  },
  'Retry-After': {
    description:
      'Seconds (an integer ≥ 1) to wait before retrying: on a 429 and a 503, and on a 409 ' +
      'ERR_IDEMPOTENCY_IN_PROGRESS (the first request with this Idempotency-Key is still running).',
    schema: { type: 'integer', minimum: 1 },
  },
  Location: {
    description: 'The path of the resource created (for a job: where to poll it).',
    schema: { type: 'string', format: 'uri-reference' },
  },
  'Server-Timing': {
    description:
      'Only when the work ran on a worker pool: `dispatch;desc="pool", wait;dur=0.12, run;dur=3.40` ' +
      '(milliseconds spent waiting for a thread, and running).',
    schema: text,
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this answer is the stored answer to an earlier request with the same Idempotency-Key ' +
      '(a replay repeats the first answer: its success, or the 404 or 409 ERR_CONFLICT the create gave once ' +
      'it had started).',
    schema: { type: 'string', enum: ['true'] },
  },
  'WWW-Authenticate': {
    description:
      'The authentication scheme: `Bearer realm="anvil"` (API keys) or `Bearer realm="anvil-admin"` ' +
      '(the admin token).',
    schema: text,
  },
  'Set-Cookie': {
    description:
      'The console session cookie, `anvil_session` (Path=/console; HttpOnly; Secure; SameSite=Strict): set by ' +
      'sign-up and sign-in, renewed (a new Max-Age, at most once a minute) as the session is used, cleared ' +
      '(Max-Age=0) by sign-out and when the cookie sent no longer names a valid session.',
    schema: text,
  },
  Traceresponse: {
    description:
      'Only when the operator turned tracing on (OTEL_EXPORTER_OTLP_ENDPOINT): ' +
      '`00-<trace id>-<span id of the gateway span>-<flags>` (W3C Trace Context Level 2), so a request can ' +
      'be found in the traces. A `traceparent` you send is continued.',
    schema: { type: 'string', pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' },
  },
  'Content-Encoding': {
    description:
      '`br` or `gzip`: the JSON answer is compressed, because it is at least 1400 bytes and your ' +
      'Accept-Encoding allows that coding (br preferred). Absent otherwise; raw bytes are never compressed.',
    schema: { type: 'string', enum: ['br', 'gzip'] },
  },
  Vary: {
    description:
      '`Accept-Encoding` on a compressed answer; `Origin` on /v1 answers when the operator lists browser ' +
      'origins (CORS_ALLOWED_ORIGINS other than `*`), since the CORS headers then depend on it.',
    schema: text,
  },
  'Access-Control-Allow-Origin': {
    description:
      'Only when the operator allows browser pages of your origin to call the API (CORS_ALLOWED_ORIGINS) ' +
      'and the request has that Origin: the origin, or `*` when any is allowed. Credentials are never allowed.',
    schema: text,
  },
  'Access-Control-Expose-Headers': {
    description:
      'With Access-Control-Allow-Origin: the response headers a page may read, `RateLimit, ' +
      'RateLimit-Policy, Request-Id, Retry-After, Server-Timing, Idempotent-Replayed, Location, Traceresponse`.',
    schema: text,
  },
  'Cache-Control': {
    description: 'Console answers are never stored: `no-store`.',
    schema: text,
  },
  'Content-Security-Policy': {
    description: "Console answers: a strict policy (`default-src 'none'`, ...); browsers enforce it.",
    schema: text,
  },
  'Strict-Transport-Security': {
    description: 'Console answers: `max-age=63072000` (browsers keep to HTTPS for the console).',
    schema: text,
  },
  'X-Content-Type-Options': { description: 'Console answers: `nosniff`.', schema: text },
  'X-Frame-Options': { description: 'Console answers: `DENY` (never framed).', schema: text },
  'Referrer-Policy': { description: 'Console answers: `same-origin`.', schema: text },
  'Cross-Origin-Opener-Policy': { description: 'Console answers: `same-origin`.', schema: text },
} satisfies Record<string, HeaderObject>

export type HeaderName = keyof typeof HEADERS

// What a listener adds to the answers of its routes, whatever the route: given by the app that builds the
// document, from the same settings its plugins are registered with.
export interface ListenerHeaders {
  // paths offered to browser pages of other origins (src/http/hooks/cors.ts): Access-Control-*, Vary
  crossOrigin?: (path: string) => boolean
  // Traceresponse, sent when tracing is on (src/http/hooks/trace.ts)
  tracing?: boolean
  // Content-Encoding and Vary on JSON answers above the threshold (src/http/answer/compression.ts)
  compression?: boolean
  // what a scope adds to every answer under some paths (the console's session cookie and security headers)
  pathHeaders?: (path: string) => readonly HeaderName[]
}

export interface HeaderContext {
  status: number
  // the route's access rule: apiKey, admin, sessionCookie or none
  security: string
  // the route's path (/v1/jobs/:id)
  path: string
  // the answer may be the replay of a stored one (Idempotency-Key): a create's success, or a 4xx it gave
  replayable: boolean
  // the error codes this response stands for (none for the success)
  codes: readonly ErrorCode[]
  // headers only this route's success answer carries, with when (RouteDoc.headers)
  routeHeaders: Partial<Record<HeaderName, string>>
  listener: ListenerHeaders
}

type HeaderRef = { $ref: string; description?: string }

const ref = (name: HeaderName, description?: string): HeaderRef => ({
  $ref: `#/components/headers/${name}`,
  ...(description ? { description } : {}),
})

export function responseHeaders(ctx: HeaderContext): Record<string, HeaderRef> {
  const { status, security, codes, listener } = ctx
  const success = status < 300
  const keyed = security === 'apiKey'
  const out: Partial<Record<HeaderName, HeaderRef>> = { 'Request-Id': ref('Request-Id') }
  if (keyed && status !== 401) {
    out.RateLimit = ref('RateLimit')
    out['RateLimit-Policy'] = ref('RateLimit-Policy')
  }
  if (status === 429 || status === 503) out['Retry-After'] = ref('Retry-After')
  if (codes.includes('ERR_IDEMPOTENCY_IN_PROGRESS')) {
    out['Retry-After'] = ref(
      'Retry-After',
      'With ERR_IDEMPOTENCY_IN_PROGRESS: seconds to wait before retrying (the first request with this ' +
        'Idempotency-Key is still running).',
    )
  }
  if (status === 401 && (keyed || security === 'admin')) out['WWW-Authenticate'] = ref('WWW-Authenticate')
  if (status === 201 || status === 202) out.Location = ref('Location')
  if (keyed && success) out['Server-Timing'] = ref('Server-Timing')
  if (ctx.replayable) out['Idempotent-Replayed'] = ref('Idempotent-Replayed')
  if (success) {
    for (const [name, when] of Object.entries(ctx.routeHeaders) as [HeaderName, string][]) {
      out[name] = ref(name, when)
    }
  }
  for (const name of listener.pathHeaders?.(ctx.path) ?? []) out[name] = ref(name)
  if (listener.crossOrigin?.(ctx.path)) {
    out['Access-Control-Allow-Origin'] = ref('Access-Control-Allow-Origin')
    out['Access-Control-Expose-Headers'] = ref('Access-Control-Expose-Headers')
    out.Vary = ref('Vary')
  }
  if (listener.compression) {
    out['Content-Encoding'] = ref('Content-Encoding')
    out.Vary = ref('Vary')
  }
  if (listener.tracing) out.Traceresponse = ref('Traceresponse')
  return out
}
