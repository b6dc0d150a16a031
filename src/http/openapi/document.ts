import { z } from 'zod'
import { ERRORS, type ErrorCode } from '../../errors.ts'
import type { CollectedRoute } from './collector.ts'
import { API_DESCRIPTION } from './description.ts'

type JsonSchema = Record<string, unknown>

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema
  delete out.$schema
  return out
}

const errorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'message', 'code'],
      properties: {
        type: {
          type: 'string',
          enum: [
            'invalid_request',
            'authentication_error',
            'permission_error',
            'rate_limit_error',
            'api_error',
          ],
        },
        message: { type: 'string' },
        code: { type: 'string', enum: Object.keys(ERRORS) },
        details: { type: 'object', additionalProperties: true },
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

function errorResponses(route: CollectedRoute): Record<string, unknown> {
  const codes = new Set<ErrorCode>([...COMMON_ERRORS, ...(route.doc.errors ?? [])])
  if (route.family) for (const c of KEYED_ERRORS) codes.add(c)
  if (route.body) for (const c of BODY_ERRORS) codes.add(c)
  if (route.querystring || route.params) codes.add('ERR_VALIDATION')
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of codes) {
    const status = ERRORS[code].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  const out: Record<string, unknown> = {}
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: list.join(', '),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    }
  }
  return out
}

function parameters(route: CollectedRoute): unknown[] {
  const params: unknown[] = []
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.querystring],
  ] as const) {
    if (!schema) continue
    const json = toSchema(schema, 'input')
    const props = (json.properties ?? {}) as Record<string, JsonSchema>
    const required = new Set((json.required as string[] | undefined) ?? [])
    for (const [name, s] of Object.entries(props)) {
      params.push({ name, in: where, required: where === 'path' || required.has(name), schema: s })
    }
  }
  return params
}

// OpenAPI 3.1, generated from the same zod schemas that validate requests.
export function buildOpenApi(routes: CollectedRoute[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}')
    const op: Record<string, unknown> = {
      operationId: route.doc.operationId,
      summary: route.doc.summary,
      tags: route.doc.tags,
      parameters: parameters(route),
      responses: {
        [String(route.doc.status ?? 200)]: {
          description: 'Success',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['ok', 'data'],
                properties: { ok: { const: true }, data: toSchema(route.doc.response, 'output') },
              },
            },
            ...(route.doc.binaryResponse
              ? {
                  'application/octet-stream': {
                    schema: { type: 'string', contentMediaType: 'application/octet-stream' },
                  },
                }
              : {}),
          },
        },
        ...errorResponses(route),
      },
    }
    if (route.doc.description) op.description = route.doc.description
    if (route.body) {
      const content: Record<string, unknown> = {
        'application/json': { schema: toSchema(route.body, 'input') },
      }
      if (route.binary) {
        content['application/octet-stream'] = {
          schema: { type: 'string', contentMediaType: 'application/octet-stream' },
        }
      }
      op.requestBody = { required: true, content }
    }
    const security = route.doc.security ?? (route.family ? 'apiKey' : 'none')
    op.security = security === 'none' ? [] : [{ [security]: [] }]
    paths[path] ??= {}
    paths[path][route.method.toLowerCase()] = op
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Anvil API', version, description: API_DESCRIPTION },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'anvil_live_… or anvil_test_… API key' },
        admin: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN (internal listener only)' },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'anvil_session',
          description:
            "Console session (sign in at /console). Every POST also needs the session's X-CSRF-Token header and a same-origin Origin.",
        },
      },
    },
  }
}
