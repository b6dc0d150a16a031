import type { z } from 'zod'
import type { ErrorCode } from '../errors.ts'
import type { OpContext } from './progress.ts'
import type { StreamStep } from './stream-step.ts'

// An operation, declared once (issue 37): its name, its route, its schemas, the function that runs it, what
// it costs, its worst cases, its examples, the plan caps it enforces, whether it streams raw bodies and
// whether it runs as a job. Everything else is derived from it: the routes (src/http/v1/ops.ts), the OpenAPI
// document and its examples, the inline bounds (src/exec/costs.ts), the pool threads' warm-up, the stall and
// cost-model benches' inputs, the job kinds and the plans table's caps. A descriptor lives in its own file,
// `src/ops/<family>/<name>.op.ts`, found by that suffix (src/ops/catalog.ts): adding an op is that file, its
// tests and a paragraph of docs/api.md. docs/architecture.md ("Adding an operation") is the recipe.

type AnyZod = z.ZodType

// What a request's path and query string add to an op's input: `with` takes the parsed params and query.
export interface OpHttp<P extends AnyZod | undefined, Q extends AnyZod | undefined> {
  // POST, always; `:name` segments take the params schema
  path: `/v1/${string}`
  params?: P
  // the query string's options (a raw body's options come from here); none: any query is refused
  query?: Q
  operationId: string
  summary: string
  // what a client needs to know beyond the summary: the OpenAPI operation's description
  description: string
  // every endpoint code the op can answer (the schema's ERR_VALIDATION and the plan's codes are implied)
  errors?: readonly ErrorCode[]
}

// A cost model: the event-loop time of the op's worst case per KiB of body, measured by
// bench/cost-models.ts, from which its inline bound is derived (docs/dispatch.md#cost-models).
export interface OpCost<I> {
  // the input shape that costs the most per byte within the op's budgets
  worst: string
  usPerKiB: number
  // work whose cost the size does not tell (amplification, a quadratic step, public-key crypto): true
  // sends it to the pool whatever its size. Runs on the event loop on the parsed input: one linear pass at
  // most, and only for bodies under the inline bound.
  // `inlineBytes`: the op's inline bound (a predicate may answer true at once for bodies past it)
  heavy?: (input: I, inlineBytes: number) => boolean
  // the memory one run holds outside the JavaScript heap (bytes; argon2's and scrypt's blocks), which
  // thread resource limits do not bound: the pool admits such work by memory (src/exec/admission.ts)
  memoryBytes?: (input: I) => number
  // the most one run may hold under these plan caps: charged instead when the body is parsed on the thread
  // (the event loop never sees the input); without it, such a body is charged the pool's whole budget
  memoryCap?: (caps: Readonly<Record<string, number>>) => number
}

// A cap the op enforces, per plan (the plans table's column of the same name, overridable per workspace):
// run gets its value in ctx.caps. Names are global: prefix them with the family.
export interface OpCap {
  free: number
  pro: number
  business: number
  describe: string
}

// A worked example: the request (path and query when they differ from the route's, headers such as Accept,
// a JSON body or, with `raw`, the text of an application/octet-stream body) and what it answers: the
// success envelope's `data`, the error object of a refusal, or (Accept: application/octet-stream) the raw
// bytes as text. "…" stands for a value that differs on every call, a string ending in "…" for one that
// starts so. The OpenAPI document shows them; test/http/openapi/examples.test.ts runs them;
// docs/examples/<family>.md lists them (scripts/docs-examples.ts).
export interface OpExample<B> {
  summary: string
  path?: string
  query?: Record<string, string>
  headers?: Record<string, string>
  body?: z.input<B>
  raw?: string
  data?: unknown
  error?: { type: string; message: string; code: ErrorCode; details?: Record<string, unknown> }
  bytes?: string
}

export interface StreamFacts<Q> {
  query: Q
  params: Record<string, string>
  // the answer is raw bytes (Accept: application/octet-stream) rather than the JSON envelope
  octets: boolean
  // the body's declared Content-Length, when it has one
  declaredBytes: number | undefined
  // the values of the op's caps for the workspace's plan
  caps: Readonly<Record<string, number>>
}

// A raw application/octet-stream body, fed chunk by chunk to a step on the plan's pool. `options` runs on the
// event loop before a byte is read (it may refuse: an unknown algorithm); its value is plain data that
// crosses to the thread, where `step` makes the step.
export interface OpStream<Q, O> {
  options: (facts: StreamFacts<Q>) => O
  step: (options: O, octets: boolean, caps: Readonly<Record<string, number>>) => StreamStep
  // a raw body answered as JSON whose whole output the thread holds is at most this large (format, Base64:
  // HELD_ANSWER_LIMIT, src/ops/stream-step.ts); none for an answer that holds nothing (a digest)
  jsonBodyLimit?: number
}

// A raw-bytes answer (Accept: application/octet-stream) of a JSON request: what the op is asked for (fields
// joined to its input) and how its result becomes bytes, where it ran (never on the event loop when large).
export interface OpOctets<R> {
  with?: Record<string, unknown>
  bytes: (result: R) => Uint8Array
}

// May run as an async job (POST /v1/jobs {operation, params}).
export interface OpJob<J extends AnyZod> {
  // the params: the body's schema plus what the route's path adds (hash: the algorithm); the body's when unset
  params?: J
  // refuses at submission what the synchronous endpoint refuses before it runs (throws an AppError)
  check?: (params: z.output<J>) => void
  // what the job's `progress` means for this op ("bytes hashed"); none: it cannot tell, and stays at 0
  progress?: string
}

export interface OpDescriptor<
  B extends AnyZod = AnyZod,
  R extends AnyZod = AnyZod,
  P extends AnyZod | undefined = AnyZod | undefined,
  Q extends AnyZod | undefined = AnyZod | undefined,
  W extends Record<string, unknown> = Record<string, unknown>,
  O = unknown,
  J extends AnyZod = AnyZod,
> {
  // family.verb (or the family alone: hash, hmac), lower case: the metric label, the job operation, the
  // warm-up's and benches' key
  name: string
  // the API-key scope family (docs/api.md, "Authentication"): the op's directory, `src/ops/<family>/`,
  // whose family.ts gives its tag in the OpenAPI document
  family: string
  http: OpHttp<P, Q>
  // what the route's path and query string add to a JSON body (hash: the algorithm from the path): `run`'s
  // input has these fields too. Annotate its parameters (`(params: { algorithm: string }) => …`): the type
  // of what it adds is read from them
  with?: (
    params: P extends AnyZod ? z.output<P> : undefined,
    query: Q extends AnyZod ? z.output<Q> : undefined,
  ) => W
  body: B
  response: R
  run: (input: z.output<B> & NoInfer<W>, ctx: OpContext) => z.input<R> | Promise<z.input<R>>
  cost: OpCost<z.output<B> & NoInfer<W>>
  // the worst-case body of about `bytes` bytes of JSON: the stall bench sends it at each plan's limit, the
  // cost-model bench times it at the op's inline bound
  worst: (bytes: number) => z.input<B> & Partial<NoInfer<W>>
  examples: readonly OpExample<B>[]
  caps?: Readonly<Record<string, OpCap>>
  // inputs the pool threads run at boot, so the first request is not the one V8 compiles for
  warm?: readonly (z.input<B> & Partial<NoInfer<W>>)[]
  // the body is parsed with parseJsonExact (src/ops/json/number.ts): numbers keep their exact text
  exactNumbers?: boolean
  // and the parse notes what it saw on the way (src/ops/json/shape.ts), for an op that reads it
  parsedShapes?: boolean
  octets?: OpOctets<z.input<R>>
  // the result's JSON text as UTF-8 bytes, for an op that makes it quicker than JSON.stringify and an
  // encoder would (json.format escapes the bytes it printed); undefined leaves it to them
  jsonBytes?: (result: never) => Uint8Array | undefined
  stream?: OpStream<Q extends AnyZod ? z.output<Q> : undefined, O>
  job?: OpJob<J>
}

// biome-ignore lint/suspicious/noExplicitAny: the catalog holds descriptors of every shape
export type AnyOp = OpDescriptor<any, any, any, any, any, any, any>

const NAME = /^[a-z][a-z0-9]*(\.[a-z][a-z0-9_]*)*$/
const CAP = /^[a-z][a-z0-9_]*$/

// Declares an operation: checks what a type cannot (its name's shape, its caps' names and order), and gives
// it back as it is.
export function defineOp<
  B extends AnyZod,
  R extends AnyZod,
  P extends AnyZod | undefined = undefined,
  Q extends AnyZod | undefined = undefined,
  W extends Record<string, unknown> = Record<never, never>,
  O = undefined,
  J extends AnyZod = B,
>(op: OpDescriptor<B, R, P, Q, W, O, J>): OpDescriptor<B, R, P, Q, W, O, J> {
  if (!NAME.test(op.name)) throw new Error(`op name "${op.name}" is not family[.verb] in lower case`)
  if (op.http.path.includes(':') !== (op.http.params !== undefined))
    throw new Error(`op ${op.name}: a path with :params takes a params schema, and only such a path`)
  for (const [name, cap] of Object.entries(op.caps ?? {})) {
    if (!CAP.test(name) || !name.startsWith(`${op.family}_`))
      throw new Error(`op ${op.name}: cap "${name}" must be snake_case and start with "${op.family}_"`)
    if (!(cap.free <= cap.pro && cap.pro <= cap.business))
      throw new Error(`op ${op.name}: cap "${name}" must not shrink from free to pro to business`)
  }
  if (op.examples.length === 0) throw new Error(`op ${op.name} has no example`)
  for (const example of op.examples) {
    const answers = [example.data, example.error, example.bytes].filter((a) => a !== undefined)
    if (answers.length !== 1)
      throw new Error(`op ${op.name}, example "${example.summary}": answers with one of data, error, bytes`)
  }
  // a job runs on a job worker from its stored record, which does not carry a workspace's caps yet
  if (op.job !== undefined && op.caps !== undefined)
    throw new Error(`op ${op.name}: an op with caps cannot run as a job yet (docs/jobs.md, "Decisions")`)
  return op
}

// A family of operations, declared once in `src/ops/<family>/family.ts` (its default export, plain data
// that src/ops/catalog.ts checks): its tag and the tag's description in the OpenAPI document, where the
// ops of the family are listed under it.
export interface FamilyDescriptor {
  tag: string
  description: string
}
