import { defineOp } from '../define.ts'
import { fill } from '../worst-case.ts'
import { parseQuery } from './query.ts'
import { queryParseBody, queryParseResult } from './schema.ts'

export default defineOp({
  name: 'url.query.parse',
  family: 'url',
  http: {
    path: '/v1/url/query/parse',
    operationId: 'parseQueryString',
    summary: 'Parse an application/x-www-form-urlencoded query string',
    description:
      'By the URL standard\'s urlencoded parser: "+" is a space, escapes are decoded to bytes and the bytes ' +
      'as UTF-8 (invalid UTF-8, such as %FF alone, becomes U+FFFD; a "%" without two hex digits stays "%"): ' +
      'a=Æ%FF&b=%25+щd%C3 gives [["a","Æ�"],["b","% щd�"]]. One leading "?" is dropped.',
  },
  body: queryParseBody,
  response: queryParseResult,
  run: parseQuery,
  cost: { worst: 'a query of thousands of short parameters', usPerKiB: 240 },
  worst: (bytes) => ({ query: fill('a=%41&', bytes) }),
  examples: [
    {
      summary: 'Parse a query string (repeated names keep every value, in order)',
      body: { query: '?tag=a&tag=b&q=caf%C3%A9+au+lait' },
      data: {
        pairs: [
          ['tag', 'a'],
          ['tag', 'b'],
          ['q', 'café au lait'],
        ],
        object: { tag: ['a', 'b'], q: 'café au lait' },
      },
    },
  ],
})
