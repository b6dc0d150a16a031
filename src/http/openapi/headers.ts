// The response headers clients read, as components.headers, and which response carries which.
export const HEADERS: Record<string, { description: string; schema: Record<string, unknown> }> = {
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
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description:
      'The policies that applied: `"second";q=10;w=1, "workspace-second";q=50;w=1, "month";q=100000;w=2678400`, ' +
      'plus `"key-month"` when the key has its own quota.',
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Seconds (an integer ≥ 1) to wait before retrying.',
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
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this answer is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  'WWW-Authenticate': {
    description: 'The authentication scheme: `Bearer realm="anvil"`.',
    schema: { type: 'string' },
  },
}

export interface HeaderContext {
  status: number
  keyed: boolean
  idempotent: boolean
}

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` })

export function responseHeaders({ status, keyed, idempotent }: HeaderContext): Record<string, unknown> {
  const names = ['Request-Id']
  if (keyed && status !== 401) names.push('RateLimit', 'RateLimit-Policy')
  if (status === 429 || status === 503) names.push('Retry-After')
  if (status === 401) names.push('WWW-Authenticate')
  if (status === 201 || status === 202) names.push('Location')
  if (keyed && status < 300) names.push('Server-Timing')
  if (idempotent && status < 300) names.push('Idempotent-Replayed')
  return Object.fromEntries(names.map((n) => [n, ref(n)]))
}
