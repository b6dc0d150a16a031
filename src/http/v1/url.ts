import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import {
  queryBuildBody,
  queryParseBody,
  urlBuildBody,
  urlModifyBody,
  urlParseBody,
} from '../../ops/url/schema.ts'
import { defineRoute } from '../define-route.ts'

const component = (text: string) => z.string().describe(text)

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

const queryParseResult = z.object({
  pairs: queryPairs.describe('[name, value] pairs, decoded'),
  object: queryObject,
})

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
    body: urlParseBody,
    response: urlParts,
    errors: ['ERR_INVALID_URL'],
    op: 'url.parse',
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
    body: urlBuildBody,
    response: urlParts,
    errors: ['ERR_INVALID_URL'],
    op: 'url.build',
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
    body: urlModifyBody,
    response: urlParts,
    errors: ['ERR_INVALID_URL'],
    op: 'url.modify',
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
    op: 'url.query.parse',
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/url/query/build',
    security: 'apiKey',
    family: 'url',
    operationId: 'buildQueryString',
    summary: 'Build an application/x-www-form-urlencoded query string',
    description:
      'Serializes `params`, an object (an array value repeats its name) or a list of [name, value] pairs ' +
      '(order kept), as URLSearchParams does: spaces become "+", everything outside the URL-safe set is ' +
      'percent-encoded as UTF-8. The answer has no leading "?".',
    tags: ['URL'],
    body: queryBuildBody,
    response: queryBuildResult,
    op: 'url.query.build',
  })
}
