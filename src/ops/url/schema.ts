// The url family's request bodies (the routes' schemas, and what a worker validates a large body with:
// OpDescriptor.body, src/ops/define.ts), and the shape check of query parameters (a body refinement and the
// ops' own guard alike).
import { z } from 'zod'
import type { QueryParams, QueryScalar } from './types.ts'

export interface QueryIssue {
  path: (string | number)[]
  message: string
}

const MAX_ISSUES = 20

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function isScalar(value: unknown): value is QueryScalar {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  )
}

const SCALAR = 'a string, a finite number, a boolean or null'

// The shape check lives here rather than in a zod record: zod drops "__proto__" keys, which are data here.
export function queryParamsIssues(params: unknown): QueryIssue[] {
  const issues: QueryIssue[] = []
  if (Array.isArray(params)) {
    params.forEach((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2) {
        issues.push({ path: [i], message: 'Expected a [name, value] pair' })
      } else {
        if (typeof pair[0] !== 'string') issues.push({ path: [i, 0], message: 'The name must be a string' })
        if (!isScalar(pair[1])) issues.push({ path: [i, 1], message: `The value must be ${SCALAR}` })
      }
    })
  } else if (isPlainObject(params)) {
    for (const name of Object.keys(params)) {
      const value = params[name]
      const values = Array.isArray(value) ? value : [value]
      values.forEach((v, i) => {
        if (!isScalar(v)) {
          const path = Array.isArray(value) ? [name, i] : [name]
          issues.push({ path, message: `The value must be ${SCALAR}, or an array of those` })
        }
      })
    }
  } else {
    issues.push({
      path: [],
      message: 'Expected an object of names to values, or an array of [name, value] pairs',
    })
  }
  return issues.slice(0, MAX_ISSUES)
}

const queryScalar = z.union([z.string(), z.number(), z.boolean(), z.null()])
const queryParamsShape = z.union([
  z.array(z.tuple([z.string(), queryScalar])).describe('[name, value] pairs, sent in this order'),
  z
    .record(z.string(), z.union([queryScalar, z.array(queryScalar)]))
    .describe('Names to values; an array repeats the name once per value, in order'),
])
const queryParamsJsonSchema = (() => {
  const { $schema: _, ...schema } = z.toJSONSchema(queryParamsShape, { target: 'draft-2020-12', io: 'input' })
  return schema
})()

// zod's record() drops "__proto__" keys, which are ordinary names here: the shape is checked by hand and
// documented with the JSON Schema of the record it stands for.
function queryParams(description: string) {
  return z
    .custom<QueryParams>()
    .superRefine(function checkQueryParams(value, ctx) {
      for (const issue of queryParamsIssues(value)) {
        ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path })
      }
    })
    .meta({
      ...queryParamsJsonSchema,
      description:
        `${description} Numbers and booleans are sent as text, null as an empty value ("name="). ` +
        'Object keys follow JavaScript property order (integer-like names first); use pairs to fix the order.',
    })
}

const port = z
  .union([z.number().int(), z.string()])
  .describe('0–65535, as a number or a string of digits; "" for none. A scheme default port is dropped.')

export const urlParseBody = z.strictObject({
  url: z.string().describe('The URL to parse, absolute or relative to base'),
  base: z.string().nullable().optional().describe('An absolute URL to resolve url against; null means none'),
})

export const urlBuildBody = z.strictObject({
  protocol: z.string().min(1).describe('The scheme, with or without its colon: "https" or "https:"'),
  hostname: z
    .string()
    .optional()
    .describe(
      'A bare host (no port, credentials or path); domains are IDNA-mapped. Omit for mailto:-like URLs.',
    ),
  username: z.string().optional(),
  password: z.string().optional(),
  port: port.optional(),
  pathname: z
    .string()
    .optional()
    .describe('Encoded as needed; without a hostname and a leading "/", an opaque path (mailto:a@b.c)'),
  search: z.string().optional().describe('With or without the leading "?"'),
  hash: z.string().optional().describe('With or without the leading "#"'),
  query: queryParams('Appended to the query of `search` as application/x-www-form-urlencoded.').optional(),
})

const settable = z
  .strictObject({
    href: z.string().optional().describe('A whole new URL; applied first; must be valid'),
    protocol: z.string().optional(),
    username: z.string().optional(),
    password: z.string().optional(),
    host: z.string().optional(),
    hostname: z.string().optional(),
    port: port.optional(),
    pathname: z.string().optional(),
    search: z.string().optional(),
    hash: z.string().optional(),
  })
  .describe(
    'Components to set, with the WHATWG setters (as the WPT setters tests): a value a setter cannot use is ' +
      'ignored. Applied in the order href, protocol, username, password, host, hostname, port, pathname, ' +
      'search, hash.',
  )

export const urlModifyBody = z.strictObject({
  url: z.string().describe('An absolute URL'),
  set: settable.optional(),
  query: z
    .strictObject({
      delete: z.array(z.string()).optional().describe('Names whose every pair is removed; applied first'),
      set: queryParams(
        'Each name replaces all its pairs, at the place of its first pair (last when new).',
      ).optional(),
      append: queryParams('Pairs added at the end; applied last.').optional(),
    })
    .optional()
    .describe(
      'Edits of the query, applied after `set`; the query is then re-serialized as URLSearchParams does',
    ),
  sort_query: z.boolean().default(false).describe('Stable sort of the pairs by name (UTF-16 code units)'),
  strip_hash: z.boolean().default(false).describe('Remove the fragment; applied last'),
})

export const queryParseBody = z.strictObject({
  query: z.string().describe('A query string, with or without the leading "?"'),
})
export const queryBuildBody = z.strictObject({ params: queryParams('The parameters to encode.') })

const component = (text: string) => z.string().describe(text)

export const queryPairs = z.array(z.tuple([z.string(), z.string()]))
export const queryObject = z
  .record(z.string(), z.union([z.string(), z.array(z.string())]))
  .describe(
    'The query by name: a string, or an array when the name repeats. "__proto__" is an ordinary name.',
  )

export const urlParts = z
  .object({
    href: component('The whole URL, serialized'),
    origin: component('scheme://host[:port] for http(s), ws(s), ftp and blob: of those; "null" otherwise'),
    protocol: component('The scheme with its colon, e.g. "https:"'),
    username: component('Percent-encoded'),
    password: component('Percent-encoded'),
    host: component('hostname and, when not the default, ":port"'),
    hostname: component('ASCII (punycode) for special schemes; IPv6 in brackets'),
    port: component('"" when absent or the default for the scheme'),
    pathname: component('Percent-encoded path'),
    search: component('"" or "?" followed by the query'),
    hash: component('"" or "#" followed by the fragment'),
    query: queryPairs.describe('The query as application/x-www-form-urlencoded [name, value] pairs, decoded'),
    query_object: queryObject,
  })
  // the one answer of parse, build and modify, named (OpenAPI component, SDK type) as it always was
  .meta({ id: 'ParseUrlResult' })

export const queryParseResult = z.object({
  pairs: queryPairs.describe('[name, value] pairs, decoded'),
  object: queryObject,
})

export const queryBuildResult = z.object({
  query: z
    .string()
    .describe('application/x-www-form-urlencoded, as URLSearchParams writes it; no leading "?"'),
})
