import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

// Thousands of requests through one key: lift the per-second caps out of the way.
// Hostile bodies for every URL endpoint: the answer is always an envelope and never a 5xx.
const anyUnit = fc.nat({ max: 0xffff }).map((n) => String.fromCharCode(n))
const mutatedUrl = fc
  .tuple(
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.nat(),
    fc.string({ unit: anyUnit, maxLength: 3 }),
  )
  .map(([url, at, insert]) => url.slice(0, at % (url.length + 1)) + insert + url.slice(at % (url.length + 1)))
const hostileString = fc.oneof(
  fc.string({ unit: anyUnit, maxLength: 40 }),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  mutatedUrl,
  fc.constantFrom(
    '__proto__',
    'constructor',
    'http://[',
    'http://a:99999/',
    'file://a:1/',
    'a\ud800b',
    '\udc00',
    'http://xn--/',
    '//',
    'sc:',
    'blob:https://a/',
    'http://0x100000000/',
    '\u0000 http://a',
    'https://%EF%BF%BD',
    `http://a/${'%'.repeat(3000)}`,
    `http://${'a.'.repeat(2000)}com/`,
  ),
)
const hostileValue = fc.oneof(
  hostileString,
  fc.constantFrom(1e308, -0, 2 ** 53 + 2, -1, 65536, 3.5, true, false, null),
  fc.jsonValue({ maxDepth: 3 }),
)
// mostly the right type, so that the operations run, now and then anything
function mostly(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 8, arbitrary: valid }, { weight: 1, arbitrary: hostileValue })
}
const mostlyString = mostly(hostileString)
const mostlyScalar = mostly(
  fc.oneof(hostileString, fc.constantFrom(1e308, -0, 2 ** 53 + 2, 3.5, true, false, null)),
)
const protoKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString'), hostileString)
const queryParams = mostly(
  fc.oneof(
    fc.dictionary(protoKey, fc.oneof(mostlyScalar, fc.array(mostlyScalar, { maxLength: 3 })), { maxKeys: 5 }),
    fc.array(fc.tuple(hostileString, mostlyScalar), { maxLength: 5 }),
  ),
)
const buildComponents = {
  protocol: fc.oneof(
    fc.constantFrom('http', 'https:', 'file', 'mailto', 'sc', 'ws', 'HTTP', 'blob'),
    mostlyString,
  ),
  username: mostlyString,
  password: mostlyString,
  hostname: fc.oneof(fc.domain(), fc.constantFrom('[::1]', '127.1', ''), mostlyString),
  port: fc.oneof(fc.nat({ max: 70000 }), mostlyString),
  pathname: mostlyString,
  search: mostlyString,
  hash: mostlyString,
}
const components = { ...buildComponents, host: mostlyString, href: mostlyString }
const loose = { requiredKeys: [] as never[] }
const noise = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.object({ maxDepth: 3 }),
  fc.dictionary(protoKey, hostileValue),
)

function bodies(shaped: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: shaped }, { weight: 1, arbitrary: noise })
}

const ENDPOINTS: [string, fc.Arbitrary<unknown>][] = [
  ['/v1/url/parse', bodies(fc.record({ url: mostlyString, base: fc.option(mostlyString) }, loose))],
  [
    '/v1/url/build',
    bodies(fc.record({ ...buildComponents, query: queryParams }, { requiredKeys: ['protocol'] })),
  ],
  [
    '/v1/url/modify',
    bodies(
      fc.record(
        {
          url: mostly(fc.oneof(fc.webUrl(), hostileString)),
          set: mostly(fc.record(components, loose)),
          query: mostly(
            fc.record(
              { delete: mostly(fc.array(hostileString)), set: queryParams, append: queryParams },
              loose,
            ),
          ),
          sort_query: mostly(fc.boolean()),
          strip_hash: mostly(fc.boolean()),
        },
        loose,
      ),
    ),
  ],
  ['/v1/url/query/parse', bodies(fc.record({ query: mostly(fc.oneof(hostileString, mutatedUrl)) }, loose))],
  ['/v1/url/query/build', bodies(fc.record({ params: queryParams }, loose))],
]

function expectEnvelope(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBeLessThan(500)
  const body = res.json()
  if (res.statusCode === 200) {
    expect(body).toEqual({ ok: true, data: expect.any(Object) })
    if (typeof body.data.href === 'string') expect(URL.canParse(body.data.href)).toBe(true)
  } else {
    expect(body.error).toMatchObject({
      type: 'invalid_request',
      message: expect.any(String),
      code: expect.any(String),
    })
  }
}

describe('/v1/url fuzz', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  for (const [path, body] of ENDPOINTS) {
    it(`${path}: arbitrary bodies get an envelope, never a 5xx`, async () => {
      await fc.assert(
        fc.asyncProperty(body, async (b) => expectEnvelope(await t.post(path, b))),
        { numRuns: 200 },
      )
    })

    it(`${path}: deep nesting and "__proto__" keys in the raw JSON`, async () => {
      const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`
      for (const raw of [
        `{"url":${deep},"query":${deep},"params":${deep},"protocol":${deep}}`,
        '{"__proto__":{"url":"http://a"},"url":"http://b","query":"a","params":{"__proto__":"x"}}',
        `{"params":{"__proto__":${deep}},"set":{"__proto__":"x"}}`,
        '{"url":12345678901234567890,"port":1e400,"params":{"a":-1e400},"query":{"set":{"a":1e-400}}}',
      ]) {
        expectEnvelope(await t.post(path, raw))
      }
      expect(({} as Record<string, unknown>)['url']).toBeUndefined()
    })
  }
})
