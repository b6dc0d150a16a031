import { defineOp } from '../define.ts'
import { fill } from '../worst-case.ts'
import { modifyUrl } from './modify.ts'
import { urlModifyBody, urlParts } from './schema.ts'

export default defineOp({
  name: 'url.modify',
  family: 'url',
  http: {
    path: '/v1/url/modify',
    operationId: 'modifyUrl',
    summary: 'Change components and query parameters of a URL',
    description: 'Order: set components, then query delete, set, append, then sort_query, then strip_hash.',
    errors: ['ERR_INVALID_URL'],
  },
  body: urlModifyBody,
  response: urlParts,
  run: modifyUrl,
  cost: { worst: 'set and sort a query of thousands of parameters', usPerKiB: 800 },
  worst: (bytes) => ({
    url: `https://example.com/?${fill('a=1&', bytes - 40)}`,
    query: { set: { b: '2' } },
    sort_query: true,
  }),
  examples: [
    {
      summary:
        'Change a URL: set components, drop tracking parameters, add one, sort the query and strip the fragment',
      body: {
        url: 'https://shop.example/items?utm_source=mail&b=2&a=1#reviews',
        set: { pathname: '/items/42' },
        query: { delete: ['utm_source'], append: { ref: 'home' } },
        sort_query: true,
        strip_hash: true,
      },
      data: {
        href: 'https://shop.example/items/42?a=1&b=2&ref=home',
        origin: 'https://shop.example',
        protocol: 'https:',
        username: '',
        password: '',
        host: 'shop.example',
        hostname: 'shop.example',
        port: '',
        pathname: '/items/42',
        search: '?a=1&b=2&ref=home',
        hash: '',
        query: [
          ['a', '1'],
          ['b', '2'],
          ['ref', 'home'],
        ],
        query_object: { a: '1', b: '2', ref: 'home' },
      },
    },
  ],
})
