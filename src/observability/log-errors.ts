// How every logger writes an error: its type, message, code and stack, and its cause the same way, never
// its other properties. ioredis puts the failed command on its errors (`command: {name, args}`) and pino's
// own serializer copies every enumerable property, so a refused write logged its arguments: a key's hash,
// a kept idempotent answer, a password hash (issue 27). Nothing a command carries reaches a log line.

// what an error may say about itself beyond its message (Node's system errors, Fastify's, ours)
const KEPT = ['code', 'statusCode', 'errno', 'syscall'] as const
// causes and aggregated errors followed at most this deep and this many
const MAX_DEPTH = 3
const MAX_AGGREGATED = 5

export interface LoggedError {
  type: string
  message: string
  stack?: string
  code?: string | number
  statusCode?: number
  errno?: number
  syscall?: string
  cause?: LoggedError | string
  aggregateErrors?: (LoggedError | string)[]
}

function isErrorLike(value: unknown): value is Error {
  return (
    value instanceof Error ||
    (typeof value === 'object' &&
      value !== null &&
      typeof (value as { message?: unknown }).message === 'string')
  )
}

export function serializeError(err: unknown, depth = 0): LoggedError | string {
  if (!isErrorLike(err)) return String(err)
  const out: LoggedError = {
    type: typeof err.constructor === 'function' && err.constructor.name ? err.constructor.name : err.name,
    message: err.message,
  }
  if (typeof err.stack === 'string') out.stack = err.stack
  const fields = err as unknown as Record<string, unknown>
  for (const name of KEPT) {
    const value = fields[name]
    if (typeof value === 'string' || typeof value === 'number')
      (out as unknown as Record<string, unknown>)[name] = value
  }
  if (depth < MAX_DEPTH) {
    if (err.cause !== undefined) out.cause = serializeError(err.cause, depth + 1)
    const errors = fields.errors
    if (Array.isArray(errors))
      out.aggregateErrors = errors.slice(0, MAX_AGGREGATED).map((e) => serializeError(e, depth + 1))
  }
  return out
}

// pino's `serializers` for every logger of the gateway and the job worker (typed as Fastify's is)
export const errorSerializers = {
  err(err: unknown): { type: string; message: string; stack: string; [key: string]: unknown } {
    const logged = serializeError(err)
    if (typeof logged === 'string') return { type: typeof err, message: logged, stack: '' }
    return { ...logged, stack: logged.stack ?? '' }
  },
}
