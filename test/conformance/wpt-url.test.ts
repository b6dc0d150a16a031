import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../helpers/harness.ts'

// The WPT URL suites, vendored under test/fixtures/conformance/ (see PROVENANCE.md), run through the endpoints.
const SUITE = new URL('../fixtures/conformance/wpt-url/', import.meta.url)

// Thousands of requests through one key: lift the per-second caps out of the way.
const COMPONENTS = [
  'href',
  'origin',
  'protocol',
  'username',
  'password',
  'host',
  'hostname',
  'port',
  'pathname',
  'search',
  'hash',
] as const

interface ParseCase {
  input: string
  base: string | null
  failure?: boolean
  searchParams?: string
  [component: string]: unknown
}

interface SetterCase {
  href: string
  new_value: string
  expected: Record<string, string>
}

function load<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, SUITE), 'utf8')) as T
}

// comment entries are strings
const parseCases = load<(string | ParseCase)[]>('urltestdata.json').filter(
  (c): c is ParseCase => typeof c !== 'string',
)
const setterSuites = Object.entries(load<Record<string, unknown>>('setters_tests.json'))
  .filter(([component]) => component !== 'comment')
  .map(([component, cases]) => [component, cases as SetterCase[]] as const)

describe('WPT urltestdata.json through POST /v1/url/parse', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  it('holds the whole suite', () => {
    expect(parseCases.length).toBe(891)
  })

  parseCases.forEach((c, i) => {
    const name = `#${i} ${JSON.stringify(c.input)} against ${JSON.stringify(c.base)}`
    it(c.failure ? `${name} fails` : name, async () => {
      const res = await t.post('/v1/url/parse', { url: c.input, base: c.base })
      const body = res.json()
      if (c.failure) {
        expect(res.statusCode, JSON.stringify(body)).toBe(400)
        expect(body.error.code).toBe('ERR_INVALID_URL')
        return
      }
      expect(res.statusCode, JSON.stringify(body)).toBe(200)
      const expected: Record<string, unknown> = {}
      const actual: Record<string, unknown> = {}
      for (const k of COMPONENTS) {
        if (!(k in c)) continue
        expected[k] = c[k]
        actual[k] = body.data[k]
      }
      expect(actual).toEqual(expected)
      if (c.searchParams !== undefined) {
        expect(new URLSearchParams(body.data.query).toString()).toBe(c.searchParams)
      }
    })
  })
})

describe('WPT setters_tests.json through POST /v1/url/modify', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  it('holds the whole suite', () => {
    expect(setterSuites.reduce((n, [, cases]) => n + cases.length, 0)).toBe(278)
  })

  for (const [component, cases] of setterSuites) {
    cases.forEach((c, i) => {
      it(`${component} #${i}: ${JSON.stringify(c.href)} ← ${JSON.stringify(c.new_value)}`, async () => {
        const res = await t.post('/v1/url/modify', { url: c.href, set: { [component]: c.new_value } })
        const body = res.json()
        expect(res.statusCode, JSON.stringify(body)).toBe(200)
        const actual: Record<string, unknown> = {}
        for (const k of Object.keys(c.expected)) actual[k] = body.data[k]
        expect(actual).toEqual(c.expected)
      })
    })
  }
})
