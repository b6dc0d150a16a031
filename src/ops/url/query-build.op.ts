import { defineOp } from '../define.ts'
import { buildQuery } from './query.ts'
import { queryBuildBody, queryBuildResult } from './schema.ts'

export default defineOp({
  name: 'url.query.build',
  family: 'url',
  http: {
    path: '/v1/url/query/build',
    operationId: 'buildQueryString',
    summary: 'Build an application/x-www-form-urlencoded query string',
    description:
      'Serializes `params`, an object (an array value repeats its name) or a list of [name, value] pairs ' +
      '(order kept), as URLSearchParams does: spaces become "+", everything outside the URL-safe set is ' +
      'percent-encoded as UTF-8. The answer has no leading "?".',
  },
  body: queryBuildBody,
  response: queryBuildResult,
  run: buildQuery,
  cost: { worst: 'thousands of short parameters', usPerKiB: 90 },
  worst: (bytes) => ({
    params: Object.fromEntries(Array.from({ length: Math.floor(bytes / 12) }, (_, i) => [`k${i}`, 'v é'])),
  }),
  examples: [
    {
      summary: 'Build a query string',
      body: { params: { q: 'café au lait', tag: ['a', 'b'] } },
      data: { query: 'q=caf%C3%A9+au+lait&tag=a&tag=b' },
    },
  ],
})
