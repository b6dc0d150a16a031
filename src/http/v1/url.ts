import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { type QueryParams, queryParamsIssues } from '../../ops/url/query.ts'
import { defineRoute } from '../define-route.ts'

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

const component = (text: string) => z.string().describe(text)
const port = z
  .union([z.number().int(), z.string()])
  .describe('0–65535, as a number or a string of digits; "" for none. A scheme default port is dropped.')

const queryPairs = z.array(z.tuple([z.string(), z.string()]))
const queryObject = z
  .record(z.string(), z.union([z.string(), z.array(z.string())]))
  .describe(
    'The query by name: a string, or an array when the name repeats. "__proto__" is an ordinary name.',
  )

export const urlParts = z.object({
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

const parseBody = z.strictObject({
  url: z.string().describe('The URL to parse, absolute or relative to base'),
  base: z.string().nullable().optional().describe('An absolute URL to resolve url against; null means none'),
})

const buildBody = z.strictObject({
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

const modifyBody = z.strictObject({
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

const queryParseBody = z.strictObject({
  query: z.string().describe('A query string, with or without the leading "?"'),
})
const queryParseResult = z.object({
  pairs: queryPairs.describe('[name, value] pairs, decoded'),
  object: queryObject,
})

const queryBuildBody = z.strictObject({ params: queryParams('The parameters to encode.') })
const queryBuildResult = z.object({
  query: z
    .string()
    .describe('application/x-www-form-urlencoded, as URLSearchParams writes it; no leading "?"'),
})

export async function urlRoutes(app: FastifyInstance): Promise<void> {
  defineRoute(app, {
    method: 'POST',
    url: '/v1/url/parse',
    security: 'apiKey',
    family: 'url',
    operationId: 'parseUrl',
    summary: 'Parse a URL into its WHATWG components',
    description: 'Parses as the WHATWG URL Standard (what browsers and Node do), optionally against a base.',
    tags: ['URL'],
    body: parseBody,
    response: urlParts,
    errors: ['ERR_INVALID_URL'],
    handler: ({ body, run }) => run('url.parse', body),
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/url/build',
    security: 'apiKey',
    family: 'url',
    operationId: 'buildUrl',
    summary: 'Build a URL from components',
    description: 'Refuses, with the field at fault, any component that would not end up in the URL as given.',
    tags: ['URL'],
    body: buildBody,
    response: urlParts,
    errors: ['ERR_INVALID_URL'],
    handler: ({ body, run }) => run('url.build', body),
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/url/modify',
    security: 'apiKey',
    family: 'url',
    operationId: 'modifyUrl',
    summary: 'Change components and query parameters of a URL',
    description: 'Order: set components, then query delete, set, append, then sort_query, then strip_hash.',
    tags: ['URL'],
    body: modifyBody,
    response: urlParts,
    errors: ['ERR_INVALID_URL'],
    handler: ({ body, run }) => run('url.modify', body),
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/url/query/parse',
    security: 'apiKey',
    family: 'url',
    operationId: 'parseQueryString',
    summary: 'Parse an application/x-www-form-urlencoded query string',
    description:
      'By the URL standard\'s urlencoded parser: "+" is a space, escapes are decoded to bytes and the bytes ' +
      'as UTF-8 (invalid UTF-8, such as %FF alone, becomes U+FFFD; a "%" without two hex digits stays "%"): ' +
      'a=Æ%FF&b=%25+щd%C3 gives [["a","Æ�"],["b","% щd�"]]. One leading "?" is dropped.',
    tags: ['URL'],
    body: queryParseBody,
    response: queryParseResult,
    handler: ({ body, run }) => run('url.query.parse', body),
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/url/query/build',
    security: 'apiKey',
    family: 'url',
    operationId: 'buildQueryString',
    summary: 'Build an application/x-www-form-urlencoded query string',
    tags: ['URL'],
    body: queryBuildBody,
    response: queryBuildResult,
    handler: ({ body, run }) => run('url.query.build', body),
  })
}
