import { defineOp } from '../define.ts'
import { buildUrl } from './build.ts'
import { urlBuildBody, urlParts } from './schema.ts'

export default defineOp({
  name: 'url.build',
  family: 'url',
  http: {
    path: '/v1/url/build',
    operationId: 'buildUrl',
    summary: 'Build a URL from components',
    description: 'Refuses, with the field at fault, any component that would not end up in the URL as given.',
    errors: ['ERR_INVALID_URL'],
  },
  body: urlBuildBody,
  response: urlParts,
  run: buildUrl,
  cost: { worst: 'a query of thousands of short parameters', usPerKiB: 240 },
  worst: (bytes) => ({
    protocol: 'https',
    hostname: 'example.com',
    query: Object.fromEntries(Array.from({ length: Math.floor(bytes / 12) }, (_, i) => [`k${i}`, 'v'])),
  }),
  examples: [
    {
      summary: 'Build a URL from parts, with the query from an object (an array value repeats the name)',
      body: {
        protocol: 'https',
        hostname: 'api.example.com',
        port: 8443,
        pathname: '/v1/search',
        query: { q: 'anvil & co', tag: ['a', 'b'] },
      },
      data: {
        href: 'https://api.example.com:8443/v1/search?q=anvil+%26+co&tag=a&tag=b',
        origin: 'https://api.example.com:8443',
        protocol: 'https:',
        username: '',
        password: '',
        host: 'api.example.com:8443',
        hostname: 'api.example.com',
        port: '8443',
        pathname: '/v1/search',
        search: '?q=anvil+%26+co&tag=a&tag=b',
        hash: '',
        query: [
          ['q', 'anvil & co'],
          ['tag', 'a'],
          ['tag', 'b'],
        ],
        query_object: { q: 'anvil & co', tag: ['a', 'b'] },
      },
    },
  ],
})
