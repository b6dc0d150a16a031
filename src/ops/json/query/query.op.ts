import { defineOp } from '../../define.ts'
import { queryIsHeavy, queryWorst } from './cost.ts'
import { queryJson } from './query.ts'
import { queryBody, queryResult } from './schema.ts'
import { MAX_DOCUMENT_DEPTH } from './types.ts'

const STORE = {
  store: {
    book: [
      { title: 'Sayings of the Century', price: 8.95 },
      { title: 'Moby Dick', price: 8.99, isbn: '0-553-21311-3' },
      { title: 'The Lord of the Rings', price: 22.99, isbn: '0-395-19395-8' },
    ],
  },
}

export default defineOp({
  name: 'json.query',
  family: 'json',
  http: {
    path: '/v1/json/query',
    operationId: 'queryJson',
    summary: 'Query a JSON document with JSONPath (RFC 9535)',
    description:
      'Selects the nodes of `document` that `path` names, as RFC 9535 defines JSONPath: names, indices, ' +
      'slices, wildcards, descendants, filters with comparisons and the functions length, count, match, ' +
      'search and value (I-Regexp patterns, run in linear time). Answers the values and their Normalized ' +
      'Paths, in the same order. A path that does not parse is ERR_INVALID_JSONPATH with its `position`. ' +
      'Numbers are exact: compared by exact decimal value and answered as sent. Results are capped per plan ' +
      `(count and bytes: ERR_RESULT_TOO_LARGE); documents nested deeper than ${MAX_DOCUMENT_DEPTH} levels are refused.`,
    errors: ['ERR_INVALID_JSONPATH', 'ERR_RESULT_TOO_LARGE', 'ERR_COMPUTE_LIMIT'],
  },
  body: queryBody,
  response: queryResult,
  run: (input, ctx) =>
    queryJson(input, {
      maxResults: ctx.caps.json_query_results!,
      maxBytes: ctx.caps.json_query_bytes!,
      maxSteps: ctx.caps.json_query_steps!,
    }),
  exactNumbers: true,
  caps: {
    json_query_results: {
      free: 10_000,
      pro: 100_000,
      business: 1_000_000,
      describe: 'nodes one /v1/json/query answer may hold',
    },
    json_query_bytes: {
      free: 1024 * 1024,
      pro: 10 * 1024 * 1024,
      business: 50 * 1024 * 1024,
      describe: 'bytes of values one /v1/json/query answer may hold',
    },
    json_query_steps: {
      free: 2_000_000,
      pro: 20_000_000,
      business: 50_000_000,
      describe: 'nodes one /v1/json/query request may visit',
    },
  },
  cost: {
    worst: 'a wide document selected whole ($.*); filters and descendants are heavy',
    usPerKiB: 60,
    heavy: queryIsHeavy,
  },
  worst: queryWorst,
  warm: [
    { document: STORE, path: '$.store.book[?@.price < 10 && search(@.title, "Moby")].title' },
    { document: STORE, path: '$..isbn' },
  ],
  examples: [
    {
      summary: 'A filter: the titles of the books under 10',
      body: { document: STORE, path: '$.store.book[?@.price < 10].title' },
      data: {
        values: ['Sayings of the Century', 'Moby Dick'],
        paths: ["$['store']['book'][0]['title']", "$['store']['book'][1]['title']"],
      },
    },
    {
      summary: 'Descendants and a function: every book with an ISBN, its title matched by an I-Regexp',
      body: { document: STORE, path: "$..book[?@.isbn && match(@.title, '.*Rings')].price" },
      data: { values: [22.99], paths: ["$['store']['book'][2]['price']"] },
    },
    {
      summary: 'A path that does not parse: its position',
      body: { document: STORE, path: '$.store.book[?@.price <]' },
      error: {
        type: 'invalid_request',
        message: 'expected a query, a literal or a function at position 23.',
        code: 'ERR_INVALID_JSONPATH',
        details: { position: 23 },
      },
    },
  ],
})
