// The one table of error codes. Every error response of every listener is built from a row here.
export const ERROR_TYPES = [
  'invalid_request',
  'authentication_error',
  'permission_error',
  'rate_limit_error',
  'api_error',
] as const
export type ErrorType = (typeof ERROR_TYPES)[number]

interface ErrorRow {
  readonly status: number
  readonly type: ErrorType
  readonly message: string
}

export const ERRORS = {
  ERR_INVALID_JSON: { status: 400, type: 'invalid_request', message: 'The request body is not valid JSON.' },
  ERR_VALIDATION: {
    status: 400,
    type: 'invalid_request',
    message: 'The request does not match the schema.',
  },
  ERR_BAD_REQUEST: { status: 400, type: 'invalid_request', message: 'The request is malformed.' },
  // plain HTTP sent to the TLS listener, answered in plain HTTP before any TLS (src/http/transport/plain-http.ts)
  ERR_HTTPS_REQUIRED: { status: 400, type: 'invalid_request', message: 'This port speaks HTTPS only.' },
  ERR_UNSUPPORTED_ALGORITHM: {
    status: 400,
    type: 'invalid_request',
    message: 'The algorithm is not supported.',
  },
  ERR_INVALID_ENCODING: {
    status: 400,
    type: 'invalid_request',
    message: 'The input is not valid in its encoding.',
  },
  ERR_INVALID_BASE64: { status: 400, type: 'invalid_request', message: 'The input is not valid Base64.' },
  ERR_INVALID_JWT: {
    status: 400,
    type: 'invalid_request',
    message: 'The token is not a valid JWS compact token.',
  },
  ERR_INVALID_KEY_MATERIAL: {
    status: 400,
    type: 'invalid_request',
    message: 'The key material is not usable.',
  },
  ERR_INVALID_URL: { status: 400, type: 'invalid_request', message: 'The URL is not valid.' },
  ERR_INVALID_CRON: { status: 400, type: 'invalid_request', message: 'The cron expression is not valid.' },
  ERR_INVALID_TIMESTAMP: { status: 400, type: 'invalid_request', message: 'The timestamp is not valid.' },
  ERR_INVALID_TIMEZONE: { status: 400, type: 'invalid_request', message: 'The time zone is not known.' },
  ERR_INVALID_UUID: { status: 400, type: 'invalid_request', message: 'The UUID is not valid.' },
  ERR_INVALID_ULID: { status: 400, type: 'invalid_request', message: 'The ULID is not valid.' },
  ERR_INVALID_COMPRESSED_DATA: {
    status: 400,
    type: 'invalid_request',
    message: 'The compressed data is truncated, corrupt or followed by other bytes.',
  },
  ERR_INVALID_OTP_URI: {
    status: 400,
    type: 'invalid_request',
    message: 'The otpauth:// URI is not valid.',
  },
  ERR_INVALID_PATCH: { status: 400, type: 'invalid_request', message: 'The JSON Patch is not valid.' },
  ERR_PATCH_TEST_FAILED: {
    status: 400,
    type: 'invalid_request',
    message: 'A JSON Patch test operation failed.',
  },
  ERR_INVALID_SCHEMA: {
    status: 400,
    type: 'invalid_request',
    message: 'The JSON Schema is not valid.',
  },
  ERR_SCHEMA_REF_UNRESOLVED: {
    status: 400,
    type: 'invalid_request',
    message: 'A reference of the JSON Schema names no schema it bundles.',
  },
  ERR_UNSUPPORTED_REGEX: {
    status: 400,
    type: 'invalid_request',
    message: 'A regular expression cannot be run in linear time.',
  },
  ERR_INVALID_JSONPATH: {
    status: 400,
    type: 'invalid_request',
    message: 'The JSONPath query is not valid.',
  },
  ERR_INVALID_YAML: { status: 400, type: 'invalid_request', message: 'The input is not valid YAML 1.2.' },
  ERR_INVALID_TOML: { status: 400, type: 'invalid_request', message: 'The input is not valid TOML 1.0.' },
  ERR_INVALID_CSV: {
    status: 400,
    type: 'invalid_request',
    message: 'The input is not valid CSV (RFC 4180).',
  },
  ERR_DUPLICATE_KEY: {
    status: 400,
    type: 'invalid_request',
    message: 'A mapping in the input has the same key twice.',
  },
  ERR_UNREPRESENTABLE: {
    status: 400,
    type: 'invalid_request',
    message: 'The input holds a value the target format cannot represent.',
  },
  ERR_INVALID_HASH: {
    status: 400,
    type: 'invalid_request',
    message: 'The password hash is not in a format this service reads.',
  },
  ERR_PASSWORD_TOO_LONG: {
    status: 400,
    type: 'invalid_request',
    message: 'The password is longer than the algorithm accepts; it is never truncated.',
  },
  ERR_INVALID_PASSWORD: {
    status: 400,
    type: 'invalid_request',
    message: 'The password holds a byte the algorithm cannot take.',
  },
  // over a per-plan cap on the work one request may ask (password hashing: memory, iterations, cost; an RSA
  // modulus, a compression level, what a decompression may expand to)
  ERR_PLAN_CAP: {
    status: 422,
    type: 'invalid_request',
    message: "The request asks for more work than the plan's cap allows.",
  },
  ERR_NOT_FOUND: { status: 404, type: 'invalid_request', message: 'No such resource.' },
  ERR_METHOD_NOT_ALLOWED: {
    status: 405,
    type: 'invalid_request',
    message: 'The method is not allowed here.',
  },
  ERR_CONFLICT: {
    status: 409,
    type: 'invalid_request',
    message: 'That already exists.',
  },
  ERR_IDEMPOTENCY_IN_PROGRESS: {
    status: 409,
    type: 'invalid_request',
    message: 'A request with this Idempotency-Key is still being processed; retry shortly.',
  },
  ERR_IDEMPOTENCY_MISMATCH: {
    status: 422,
    type: 'invalid_request',
    message: 'This Idempotency-Key was used with a different request.',
  },
  ERR_IDEMPOTENCY_NOT_REPLAYABLE: {
    status: 409,
    type: 'invalid_request',
    message:
      'The request with this Idempotency-Key was processed, but its answer was too large to keep and cannot be replayed.',
  },
  ERR_REQUEST_TIMEOUT: {
    status: 408,
    type: 'invalid_request',
    message: 'The request was not received in time.',
  },
  ERR_URI_TOO_LONG: { status: 414, type: 'invalid_request', message: 'A path segment is too long.' },
  ERR_PAYLOAD_TOO_LARGE: {
    status: 413,
    type: 'invalid_request',
    message: "The request body is larger than the plan's limit.",
  },
  ERR_NOT_ACCEPTABLE: {
    status: 406,
    type: 'invalid_request',
    message: 'None of the media types this endpoint answers with is acceptable (Accept).',
  },
  // one request header over the bound of what the gateway reads of it (src/lib/header-bounds.ts); RFC 6585
  // §5 asks that the answer name it
  ERR_HEADER_TOO_LARGE: {
    status: 431,
    type: 'invalid_request',
    message: 'A request header is larger than this API reads.',
  },
  ERR_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    type: 'invalid_request',
    message: 'The Content-Type is not supported here.',
  },
  ERR_COMPUTE_LIMIT: {
    status: 422,
    type: 'invalid_request',
    message: "The operation exceeded the plan's compute budget.",
  },
  ERR_RESULT_TOO_LARGE: {
    status: 422,
    type: 'invalid_request',
    message: "The job's result is larger than the plan allows.",
  },
  ERR_MISSING_API_KEY: {
    status: 401,
    type: 'authentication_error',
    message: 'No API key. Send it as Authorization: Bearer <key>, or as the user name of HTTP Basic.',
  },
  ERR_INVALID_API_KEY: { status: 401, type: 'authentication_error', message: 'The API key is not valid.' },
  ERR_UNAUTHORIZED: { status: 401, type: 'authentication_error', message: 'Missing or wrong credentials.' },
  ERR_KEY_SCOPE: { status: 403, type: 'permission_error', message: 'The API key is not allowed to do this.' },
  ERR_CSRF: {
    status: 403,
    type: 'permission_error',
    message: "The request failed the console's cross-site request forgery check.",
  },
  // the internal listener refuses a Host not in ADMIN_ALLOWED_HOSTS (DNS rebinding); 403 rather than 421,
  // which asks a client to retry on another connection, and no other connection would be answered
  ERR_FORBIDDEN_HOST: {
    status: 403,
    type: 'permission_error',
    message: 'The Host header is not one this listener answers to.',
  },
  ERR_CORS_ORIGIN: {
    status: 403,
    type: 'permission_error',
    message: 'This origin may not call this path from a browser.',
  },
  ERR_RATE_LIMITED: { status: 429, type: 'rate_limit_error', message: 'Too many requests per second.' },
  ERR_QUOTA_EXCEEDED: { status: 429, type: 'rate_limit_error', message: 'The monthly quota is used up.' },
  ERR_INTERNAL: { status: 500, type: 'api_error', message: 'Something went wrong on our side.' },
  ERR_OVERLOADED: { status: 503, type: 'api_error', message: 'The service is overloaded; retry shortly.' },
  ERR_UNAVAILABLE: { status: 503, type: 'api_error', message: 'The service is temporarily unavailable.' },
  // the store-wide cap on job data (JOBS_MAX_STORAGE_BYTES) is reached: jobs wait for room, plain requests
  // go on; the gateway's capacity, not the client's fault (a workspace's own budget is 409 ERR_CONFLICT)
  ERR_JOB_STORAGE_FULL: {
    status: 503,
    type: 'api_error',
    message: 'The job storage of this service is full; retry later.',
  },
} as const satisfies Record<string, ErrorRow>

export type ErrorCode = keyof typeof ERRORS
export type Details = Record<string, unknown>

export interface ErrorBody {
  error: { type: ErrorType; message: string; code: ErrorCode; details?: Details }
}

// A refusal's message when its thrower gives none: the table's, or for a validation failure with issues
// the first of them ("Invalid "at": must be Unix seconds…"), so the message says what is wrong.
function defaultMessage(code: ErrorCode, details: Details | undefined): string {
  const first = (details?.issues as { path?: unknown; message?: unknown }[] | undefined)?.[0]
  if (code !== 'ERR_VALIDATION' || typeof first?.message !== 'string') return ERRORS[code].message
  const text =
    typeof first.path === 'string' && first.path !== ''
      ? `Invalid ${JSON.stringify(first.path)}: ${first.message}`
      : first.message
  return /[.?!]$/.test(text) ? text : `${text}.`
}

// Thrown by ops and routes for an expected failure; carries its table code and what to point at.
export class AppError extends Error {
  readonly code: ErrorCode
  readonly details: Details | undefined
  readonly headers: Record<string, string> | undefined
  // a plain field (not a getter) because Fastify assigns statusCode on validation errors
  statusCode: number

  constructor(code: ErrorCode, message?: string, details?: Details, headers?: Record<string, string>) {
    // an expected outcome, answered by code: no stack trace to capture (that is most of an Error's cost,
    // and a flood of refused requests makes thousands a second)
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(message ?? defaultMessage(code, details))
    Error.stackTraceLimit = limit
    this.name = 'AppError'
    this.code = code
    this.details = details
    this.headers = headers
    this.statusCode = ERRORS[code].status
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError
}

export function errorBody(code: ErrorCode, message?: string, details?: Details): ErrorBody {
  const row = ERRORS[code]
  const error: ErrorBody['error'] = { type: row.type, message: message ?? row.message, code }
  if (details !== undefined) error.details = details
  return { error }
}

// An error as a value, the form in which it crosses a boundary: from a pool thread (an AppError does not
// survive the structured clone) or from a job's record (written by a worker that may be another version).
export interface ErrorValue {
  code: string
  message: string
  details?: Details
}

export function errorValue(err: AppError): ErrorValue {
  return { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) }
}

// The one guard against codes this version does not know (a newer worker's): such an error is shown as
// ERR_INTERNAL, so `code` is always one of this table's (the OpenAPI document's ErrorCode enum).
export function knownError(error: ErrorValue): ErrorValue & { code: ErrorCode } {
  return Object.hasOwn(ERRORS, error.code)
    ? (error as ErrorValue & { code: ErrorCode })
    : { code: 'ERR_INTERNAL', message: ERRORS.ERR_INTERNAL.message }
}

// An error value answered as an AppError (through knownError).
export function fromErrorValue(error: ErrorValue): AppError {
  const known = knownError(error)
  return new AppError(known.code, known.message, known.details)
}

// A task whose off-heap memory (argon2's, scrypt's) is more than its plan's pool holds at once: it could
// never run, so it is refused as a budget (422), not as load (503 with Retry-After would invite retries
// that can never succeed). Said by the submitter, or by the thread once a body parsed there says how much.
export function overMemoryBudget(subject: string, bytes: number, budgetBytes: number): AppError {
  return new AppError(
    'ERR_COMPUTE_LIMIT',
    `${subject} needs ${bytes} bytes of memory at once; the plan's pool holds at most ${budgetBytes}.`,
    { reason: 'memory', memory_bytes: bytes, pool_memory_bytes: budgetBytes },
  )
}

// A task stopped at its compute budget, in one wording whoever stopped it: the pool killing its thread
// (src/exec/pool-failure.ts) or a streamed body's thread stopping itself between two pieces
// (workers/stream.ts). `subject` names the work ("The operation", "The job").
export function overTimeBudget(subject: string, budgetMs: number, details: Details = {}): AppError {
  return new AppError('ERR_COMPUTE_LIMIT', `${subject} exceeded the plan's ${budgetMs} ms compute budget.`, {
    reason: 'time',
    budget_ms: budgetMs,
    ...details,
  })
}
