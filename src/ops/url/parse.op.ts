import { defineOp } from '../define.ts'
import { fill } from '../worst-case.ts'
import { parseUrl } from './parse.ts'
import { urlParseBody, urlParts } from './schema.ts'

export default defineOp({
  name: 'url.parse',
  family: 'url',
  http: {
    path: '/v1/url/parse',
    operationId: 'parseUrl',
    summary: 'Parse a URL into its WHATWG components',
    description: 'Parses as the WHATWG URL Standard (what browsers and Node do), optionally against a base.',
    errors: ['ERR_INVALID_URL'],
  },
  body: urlParseBody,
  response: urlParts,
  run: parseUrl,
  cost: { worst: 'a query of thousands of short parameters', usPerKiB: 240 },
  worst: (bytes) => ({ url: `https://example.com/?${fill('a=1&', bytes - 30)}` }),
  warm: [{ url: 'https://user@example.com:8443/a/b?x=1&y=2#frag' }],
  examples: [
    {
      summary:
        'Parse a relative URL against a base (WHATWG URL Standard: IDNA hosts, dot segments, default ports)',
      body: { url: '../img/logo.png?size=2x&size=3x#top', base: 'https://user@例え.jp:8443/docs/guide/' },
      data: {
        href: 'https://user@xn--r8jz45g.jp:8443/docs/img/logo.png?size=2x&size=3x#top',
        origin: 'https://xn--r8jz45g.jp:8443',
        protocol: 'https:',
        username: 'user',
        password: '',
        host: 'xn--r8jz45g.jp:8443',
        hostname: 'xn--r8jz45g.jp',
        port: '8443',
        pathname: '/docs/img/logo.png',
        search: '?size=2x&size=3x',
        hash: '#top',
        query: [
          ['size', '2x'],
          ['size', '3x'],
        ],
        query_object: { size: ['2x', '3x'] },
      },
    },
  ],
})
