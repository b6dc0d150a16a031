import { ERRORS, type ErrorCode } from '../../errors.ts'
import { KEPT_ERRORS } from '../hooks/idempotency.ts'
import type { CollectedRoute } from './collector.ts'
import { type DocExample, routeOf } from './examples.ts'
import { HEADERS, type ListenerHeaders, responseHeaders } from './headers.ts'
import {
  ComponentSchemas,
  errorCodeSchema,
  errorTypeSchema,
  type JsonSchema,
  pascal,
  pruneComponents,
  resolve,
  rewriteRefs,
} from './schemas.ts'
import { tagsOf } from './tags.ts'

// The error envelope; its ErrorCode and ErrorType are the named zod schemas of ./schemas.ts, rendered with
// the others.
const ERROR_SCHEMAS: Record<string, JsonSchema> = {
  Error: {
    type: 'object',
    description: 'The error envelope of every failed request',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['type', 'message', 'code'],
        properties: {
          type: { $ref: '#/components/schemas/ErrorType' },
          message: { type: 'string', description: 'For humans; may change' },
          code: { $ref: '#/components/schemas/ErrorCode' },
          details: {
            type: 'object',
            additionalProperties: true,
            description: 'What to point at: issues[] with path and message, limits, supported values, ...',
          },
        },
      },
    },
  },
}

const COMMON_ERRORS: ErrorCode[] = ['ERR_INTERNAL']
const KEYED_ERRORS: ErrorCode[] = [
  'ERR_MISSING_API_KEY',
  'ERR_KEY_SCOPE',
  'ERR_RATE_LIMITED',
  'ERR_QUOTA_EXCEEDED',
  'ERR_UNAVAILABLE',
]
const BODY_ERRORS: ErrorCode[] = [
  'ERR_INVALID_JSON',
  'ERR_VALIDATION',
  'ERR_PAYLOAD_TOO_LARGE',
  'ERR_UNSUPPORTED_MEDIA_TYPE',
]
const ADMIN_ERRORS: ErrorCode[] = ['ERR_UNAUTHORIZED']
// an Idempotency-Key that is not 1–255 printable ASCII characters, a repeat while the first runs, a repeat
// with another request, a repeat of a first answer too large to keep (src/http/hooks/idempotency.ts)
const IDEMPOTENCY_ERRORS: ErrorCode[] = [
  'ERR_VALIDATION',
  'ERR_IDEMPOTENCY_IN_PROGRESS',
  'ERR_IDEMPOTENCY_MISMATCH',
  'ERR_IDEMPOTENCY_NOT_REPLAYABLE',
]

// A replay repeats what the create answered once it had started executing: its success, or one of the
// errors it then gives (KEPT_ERRORS: 404, 409 ERR_CONFLICT) that the route declares; never a refusal that
// came before it ran (validation, access, limits, body), a 5xx, nor the key's own answers.
function replayable(route: CollectedRoute, status: number, codes: readonly ErrorCode[]): boolean {
  if (!route.idempotent) return false
  if (status < 300) return true
  const declared = new Set(route.doc.errors ?? [])
  return codes.some((c) => declared.has(c) && KEPT_ERRORS.includes(c))
}

const OCTETS = { schema: { type: 'string', contentMediaType: 'application/octet-stream' } }

function errorCodes(route: CollectedRoute): Map<number, ErrorCode[]> {
  const codes = new Set<ErrorCode>([...COMMON_ERRORS, ...(route.doc.errors ?? [])])
  const security = securityOf(route)
  if (security === 'apiKey') for (const c of KEYED_ERRORS) codes.add(c)
  if (security === 'admin') for (const c of ADMIN_ERRORS) codes.add(c)
  if (route.body) for (const c of BODY_ERRORS) codes.add(c)
  if (route.querystring || route.params) codes.add('ERR_VALIDATION')
  if (route.idempotent) for (const c of IDEMPOTENCY_ERRORS) codes.add(c)
  // JSON or raw bytes, as Accept prefers: neither acceptable is a 406 (src/lib/accept.ts)
  if (route.doc.binaryResponse) codes.add('ERR_NOT_ACCEPTABLE')
  // a header the route reads over its bound (src/http/hooks/header-bounds.ts): Accept, Content-Type,
  // Authorization, Cookie
  if (route.doc.binaryResponse || route.method !== 'GET' || security !== 'none')
    codes.add('ERR_HEADER_TOO_LARGE')
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of codes) {
    const status = ERRORS[code].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  return new Map([...byStatus].sort((a, b) => a[0] - b[0]))
}

function securityOf(route: CollectedRoute): string {
  return route.doc.security ?? (route.family ? 'apiKey' : 'none')
}

// Examples under names made from their summaries (unique: several curl commands of one block share a
// summary). An answer's volatile markers stay: they read as "some id".
function namedExamples(
  list: readonly { example: DocExample }[],
  value: (example: DocExample) => unknown,
): Record<string, { summary: string; value: unknown }> {
  const out: Record<string, { summary: string; value: unknown }> = {}
  list.forEach(({ example }, i) => {
    const slug =
      example.summary
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '')
        .slice(0, 48) || `example-${i + 1}`
    let name = slug
    for (let n = 2; name in out; n++) name = `${slug}-${n}`
    out[name] = { summary: example.summary, value: value(example) }
  })
  return out
}

function isErrorAnswer(response: unknown): response is { error: { code: ErrorCode } } {
  const code = (response as { error?: { code?: unknown } } | null)?.error?.code
  return typeof code === 'string' && code in ERRORS
}

export interface DocumentOptions {
  title: string
  version: string
  description: string
  examples: readonly DocExample[]
  // what the listener adds to every answer (CORS, tracing, compression, a scope's own headers)
  listener?: ListenerHeaders
}

// OpenAPI 3.1, generated from the same zod schemas that validate requests, with the examples of
// docs/examples/ and the response headers each answer carries.
export function buildOpenApi(routes: CollectedRoute[], options: DocumentOptions): Record<string, unknown> {
  const components = new ComponentSchemas()
  const byOperation = new Map<string, { example: DocExample; params: Record<string, string> }[]>()
  for (const example of options.examples) {
    const match = routeOf(routes, example)
    if (!match) continue
    const list = byOperation.get(match.route.doc.operationId) ?? []
    list.push({ example, params: { ...match.params, ...Object.fromEntries(match.query) } })
    byOperation.set(match.route.doc.operationId, list)
  }

  const paths: Record<string, Record<string, Record<string, unknown>>> = {}
  const parameterSchemas: {
    op: Record<string, unknown>
    route: CollectedRoute
    values: Record<string, string>
  }[] = []
  for (const route of routes) {
    const name = pascal(route.doc.operationId)
    const examples = byOperation.get(route.doc.operationId) ?? []
    const security = securityOf(route)
    const status = route.doc.status ?? 200
    const headersOf = (code: number, codes: readonly ErrorCode[]) =>
      responseHeaders({
        status: code,
        security,
        path: route.url,
        replayable: replayable(route, code, codes),
        codes,
        routeHeaders: route.doc.headers ?? {},
        listener: options.listener ?? {},
      })

    const success: Record<string, unknown> = {
      schema: {
        type: 'object',
        required: ['ok', 'data'],
        properties: {
          ok: { const: true },
          data: components.ref(route.doc.response, 'output', `${name}Result`),
        },
      },
    }
    // an answer shown as text is raw bytes (Accept: application/octet-stream), not the envelope
    const answers = examples.filter(
      (e) => !isErrorAnswer(e.example.response) && typeof e.example.response !== 'string',
    )
    if (answers.length > 0) {
      success.examples = namedExamples(answers, (example) => example.response)
    }
    const rawAnswers = examples.filter((e) => typeof e.example.response === 'string')
    const responses: Record<string, unknown> = {
      [String(status)]: {
        description: route.doc.summary,
        headers: headersOf(status, []),
        content: {
          'application/json': success,
          ...(route.doc.binaryResponse
            ? {
                'application/octet-stream':
                  rawAnswers.length > 0
                    ? { ...OCTETS, examples: namedExamples(rawAnswers, (example) => example.response) }
                    : OCTETS,
              }
            : {}),
        },
      },
    }
    for (const [code, list] of errorCodes(route)) {
      const failures = examples.filter(
        (e) => isErrorAnswer(e.example.response) && ERRORS[e.example.response.error.code].status === code,
      )
      const content: Record<string, unknown> = { schema: { $ref: '#/components/schemas/Error' } }
      if (failures.length > 0) {
        content.examples = namedExamples(failures, (example) => example.response)
      }
      responses[String(code)] = {
        description: list.join(', '),
        headers: headersOf(code, list),
        content: { 'application/json': content },
      }
    }

    const op: Record<string, unknown> = {
      operationId: route.doc.operationId,
      summary: route.doc.summary,
      description: route.doc.description,
      tags: route.doc.tags,
      parameters: [],
      responses,
    }
    if (route.body) {
      const json: Record<string, unknown> = { schema: components.ref(route.body, 'input', `${name}Request`) }
      const sent = examples.filter((e) => e.example.body !== undefined && isJson(e.example.body))
      if (sent.length > 0) {
        json.examples = namedExamples(sent, (example) => JSON.parse(example.body!))
      }
      const content: Record<string, unknown> = { 'application/json': json }
      if (route.binary) content['application/octet-stream'] = OCTETS
      op.requestBody = { required: true, content }
    }
    op.security = security === 'none' ? [] : [{ [security]: [] }]
    parameterSchemas.push({ op, route, values: examples[0]?.params ?? {} })
    const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}')
    paths[path] ??= {}
    paths[path][route.method.toLowerCase()] = op
  }

  // query and path schemas are flattened into parameters once every schema has its component
  const refs = parameterSchemas.map(({ route }) => ({
    path: route.params && components.ref(route.params, 'input', `${pascal(route.doc.operationId)}Path`),
    query:
      route.querystring &&
      components.ref(route.querystring, 'input', `${pascal(route.doc.operationId)}Query`),
  }))
  // the envelope's named parts, which ERROR_SCHEMAS refers to
  components.ref(errorCodeSchema, 'output', 'ErrorCode')
  components.ref(errorTypeSchema, 'output', 'ErrorType')
  const { schemas: rendered, inputRefs } = components.render()
  const all = { ...rendered, ...ERROR_SCHEMAS }
  parameterSchemas.forEach(({ op, route, values }, i) => {
    const params: Record<string, unknown>[] = []
    for (const [where, ref] of [
      ['path', refs[i]!.path],
      ['query', refs[i]!.query],
    ] as const) {
      if (!ref) continue
      const json = resolve(rewriteRefs(ref, inputRefs) as JsonSchema, all)
      const props = (json.properties ?? {}) as Record<string, JsonSchema>
      const required = new Set((json.required as string[] | undefined) ?? [])
      for (const [name, schema] of Object.entries(props)) {
        const { description, ...rest } = schema
        const param: Record<string, unknown> = {
          name,
          in: where,
          required: where === 'path' || required.has(name),
          schema: rest,
        }
        if (typeof description === 'string') param.description = description
        // a $VARIABLE of the example (a job id, a workspace id) stays as written: it names what to put there
        if (values[name] !== undefined) param.example = values[name]
        // on a route that takes JSON or raw bytes, the query options are the raw body's (a JSON body
        // carries its own): said so, and left unticked in a reference page's request builder, which
        // would otherwise send the first value of each with the JSON example
        if (where === 'query' && route.binary) rawBodyOnly(param, rest, requestExampleNames(op))
        params.push(param)
      }
    }
    if (route.idempotent) params.push({ $ref: '#/components/parameters/IdempotencyKey' })
    op.parameters = params
    if (op.requestBody) op.requestBody = rewriteRefs(op.requestBody, inputRefs)
  })

  const securitySchemes = usedSchemes(routes)
  const document: Record<string, unknown> = {
    openapi: '3.1.0',
    info: { title: options.title, version: options.version, description: options.description },
    servers: [{ url: '/' }],
    ...tagsOf(new Set(routes.flatMap((r) => r.doc.tags ?? []))),
    paths,
  }
  const schemas = pruneComponents(document, all)
  document.components = {
    schemas,
    headers: HEADERS,
    ...(routes.some((r) => r.idempotent) ? { parameters: { IdempotencyKey: IDEMPOTENCY_KEY } } : {}),
    securitySchemes,
  }
  return document
}

const RAW_BODY_ONLY =
  'With a raw application/octet-stream body only (a JSON body carries its options in the body)'

function rawBodyOnly(param: Record<string, unknown>, schema: JsonSchema, exampleNames: string[]): void {
  const stated = typeof param.description === 'string' ? `: ${param.description}` : '.'
  param.description = `${RAW_BODY_ONLY}${stated}`
  const values = schema.enum as unknown[] | undefined
  const value = param.example ?? values?.[0]
  if (value === undefined) return
  delete param.example
  // x-disabled: Scalar's request builder shows the parameter unticked, not sent until ticked. It reads a
  // parameter's example by the name of the request body example chosen, so there is one under each name.
  const names = exampleNames.length > 0 ? exampleNames : ['raw-body']
  param.examples = Object.fromEntries(
    names.map((name) => [name, { summary: 'With a raw body', value, 'x-disabled': true }]),
  )
}

function requestExampleNames(op: Record<string, unknown>): string[] {
  const content = (op.requestBody as { content?: Record<string, { examples?: object }> } | undefined)?.content
  return Object.keys(content?.['application/json']?.examples ?? {})
}

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    "Makes a create safe to retry (Stripe's semantics; a UUID v4 is a good key). The same key with the " +
    'same method, path and body within 24 h (IDEMPOTENCY_TTL_SECONDS) answers the first response again, with ' +
    '`Idempotent-Replayed: true`, and creates nothing; with another request it is 422 ' +
    'ERR_IDEMPOTENCY_MISMATCH; while the first is still running, 409 ERR_IDEMPOTENCY_IN_PROGRESS with ' +
    'Retry-After. Kept only once the create started executing: its success, a 404 or a 409 ERR_CONFLICT; a ' +
    'refusal before it ran (validation, access, limits) or a 5xx frees the key for a retry. A first answer ' +
    'over 16 KiB is kept as its digest: its replay is 409 ERR_IDEMPOTENCY_NOT_REPLAYABLE. A key that is not ' +
    '1–255 printable ASCII characters is 400 ERR_VALIDATION.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
  example: '7f1c9e2a-4b6d-4e8f-9a0b-1c2d3e4f5a6b',
}

const SCHEMES: Record<string, unknown> = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'anvil_live_… or anvil_test_… API key, as Authorization: Bearer <key> (HTTP Basic with the key as the user name and an empty password is taken too: curl -u <key>:)',
  },
  admin: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN (internal listener only)' },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'anvil_session',
    description:
      "Console session (sign in at /console). Every POST also needs the session's X-CSRF-Token header and a same-origin Origin.",
  },
}

function usedSchemes(routes: CollectedRoute[]): Record<string, unknown> {
  const used = new Set(routes.map(securityOf))
  return Object.fromEntries(Object.entries(SCHEMES).filter(([name]) => used.has(name)))
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
