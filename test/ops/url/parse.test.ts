import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { diagnose } from '../../../src/ops/url/diagnose.ts'
import { parseUrl } from '../../../src/ops/url/parse.ts'

function failure(url: string, base?: string | null): Record<string, unknown> {
  try {
    parseUrl({ url, base })
  } catch (err) {
    expect(err).toMatchObject({ code: 'ERR_INVALID_URL' })
    return (err as { details: Record<string, unknown> }).details
  }
  throw new Error(`${url} parsed`)
}

describe('parseUrl', () => {
  it('gives the WHATWG components, normalized', () => {
    expect(parseUrl({ url: 'HTTPS://user:p%40ss@EXAMPLE.com:443/a/./b/../c?x=1&y=%20+#frag' })).toEqual({
      href: 'https://user:p%40ss@example.com/a/c?x=1&y=%20+#frag',
      origin: 'https://example.com',
      protocol: 'https:',
      username: 'user',
      password: 'p%40ss',
      host: 'example.com',
      hostname: 'example.com',
      port: '',
      pathname: '/a/c',
      search: '?x=1&y=%20+',
      hash: '#frag',
      query: [
        ['x', '1'],
        ['y', '  '],
      ],
      query_object: { x: '1', y: '  ' },
    })
  })

  it('maps hosts: IDNA, IPv4 forms and IPv6', () => {
    expect(parseUrl({ url: 'http://Bücher.de/' }).hostname).toBe('xn--bcher-kva.de')
    expect(parseUrl({ url: 'http://0x7f.1/' }).host).toBe('127.0.0.1')
    expect(parseUrl({ url: 'http://[0:0::1]:8080/' }).host).toBe('[::1]:8080')
  })

  it('resolves against a base; null means no base', () => {
    expect(parseUrl({ url: '../d?q', base: 'http://a/b/c/x' }).href).toBe('http://a/b/d?q')
    expect(parseUrl({ url: 'http://a', base: null }).href).toBe('http://a/')
    expect(failure('d', null)).toMatchObject({ reason: 'missing_scheme' })
  })

  it('gives non-special URLs an opaque origin', () => {
    const r = parseUrl({ url: 'mailto:someone@example.com?subject=hi' })
    expect(r).toMatchObject({ origin: 'null', pathname: 'someone@example.com', host: '' })
    expect(r.query).toEqual([['subject', 'hi']])
  })

  it('groups repeated names in query_object, on a null prototype', () => {
    const r = parseUrl({ url: 'http://a/?x=1&__proto__=p&x=2&constructor=c&x=3&toString=t' })
    expect(Object.getPrototypeOf(r.query_object)).toBe(null)
    expect(Object.hasOwn(r.query_object, '__proto__')).toBe(true)
    expect(Object.getOwnPropertyDescriptor(r.query_object, '__proto__')?.value).toBe('p')
    expect(r.query_object['x']).toEqual(['1', '2', '3'])
    expect(JSON.parse(JSON.stringify(r.query_object))).toEqual(
      JSON.parse('{"x":["1","2","3"],"__proto__":"p","constructor":"c","toString":"t"}'),
    )
    expect(({} as Record<string, unknown>)['p']).toBeUndefined()
    expect(Object.prototype.constructor).toBe(Object)
  })
})

describe('ERR_INVALID_URL details', () => {
  it.each([
    ['example.com/path', undefined, 'missing_scheme', 0],
    ['http://exa mple.com/', undefined, 'forbidden_host_code_point', 10],
    ['  http://a<b/', undefined, 'forbidden_host_code_point', 10],
    ['http://\tex\nam ple/', undefined, 'forbidden_host_code_point', 13],
    ['http://ho%20st/', undefined, 'forbidden_host_code_point', 9],
    ['http://a:99999/', undefined, 'invalid_port', 9],
    ['http://a:8o/', undefined, 'invalid_port', 10],
    ['http://[::1/', undefined, 'invalid_ipv6', 7],
    ['https://256.0.0.1/', undefined, 'invalid_ipv4', 8],
    ['http://user@/', undefined, 'empty_host', 12],
    ['https://a.\uffff.com/', undefined, 'invalid_host', 8],
    ['file://host:80/', undefined, 'forbidden_host_code_point', 11],
    ['//a b/', 'http://x/', 'forbidden_host_code_point', 3],
  ])('%j (base %j) → %s at %d', (url, base, reason, position) => {
    expect(failure(url, base)).toMatchObject({ field: 'url', input: url, reason, position })
  })

  it('blames the base when it is invalid or has an opaque path', () => {
    expect(failure('/x', 'not a url')).toEqual({
      field: 'base',
      input: '/x',
      base: 'not a url',
      reason: 'invalid_base',
    })
    expect(failure('x', 'mailto:a@b')).toMatchObject({ field: 'base', reason: 'opaque_base' })
  })

  it('echoes at most 2048 code units of a long input, never half a surrogate pair', () => {
    const details = failure(`${'a'.repeat(2047)}😀${'b'.repeat(5000)}`)
    expect(details.input).toBe('a'.repeat(2047))
    expect(details.input_truncated).toBe(true)
  })

  it('names a reason with an in-range position for every failure case of the WPT suite', () => {
    const data = JSON.parse(
      readFileSync(new URL('../../fixtures/conformance/wpt-url/urltestdata.json', import.meta.url), 'utf8'),
    ) as ({ input: string; base: string | null; failure?: boolean } | string)[]
    const failures = data.filter((c) => typeof c !== 'string' && c.failure === true) as {
      input: string
      base: string | null
    }[]
    expect(failures.length).toBe(267)
    let blamedOnBase = 0
    for (const c of failures) {
      const d = diagnose(c.input, c.base ?? undefined)
      expect(d.reason, c.input).not.toBe('invalid')
      // a base at fault is named as the field, with no position in the URL; every other failure is located
      if (d.field === 'base') {
        blamedOnBase++
        expect(['invalid_base', 'opaque_base'], c.input).toContain(d.reason)
        expect(d.position, c.input).toBeUndefined()
      } else {
        expect(typeof d.position, `${c.input}: position`).toBe('number')
        expect(d.position, c.input).toBeGreaterThanOrEqual(0)
        expect(d.position, c.input).toBeLessThanOrEqual(c.input.length)
      }
    }
    // the suite's relative inputs against an opaque base ("mailto:…", "sc:…")
    expect(blamedOnBase).toBe(10)
  })
})
