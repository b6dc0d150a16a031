import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type BuildUrlInput, buildUrl } from '../../../src/ops/url/build.ts'
import { parseUrl } from '../../../src/ops/url/parse.ts'

function refused(input: BuildUrlInput): Record<string, unknown> {
  try {
    buildUrl(input)
  } catch (err) {
    expect(err).toMatchObject({ code: 'ERR_INVALID_URL' })
    return (err as { details: Record<string, unknown> }).details
  }
  throw new Error('built')
}

describe('buildUrl', () => {
  it('assembles every component, encoding each as its setter does', () => {
    const r = buildUrl({
      protocol: 'https:',
      hostname: 'Bücher.example',
      username: 'a@b',
      password: 'p:w',
      port: 8443,
      pathname: 'docs/a b?#',
      search: '?x=1',
      query: { q: 'c d', tag: ['e', 'f'] },
      hash: 'top',
    })
    expect(r.href).toBe(
      'https://a%40b:p%3Aw@xn--bcher-kva.example:8443/docs/a%20b%3F%23?x=1&q=c+d&tag=e&tag=f#top',
    )
    expect(r.query_object).toEqual({ x: '1', q: 'c d', tag: ['e', 'f'] })
  })

  it('drops the default port and lower-cases the scheme', () => {
    expect(buildUrl({ protocol: 'HTTP', hostname: 'a', port: '80' }).href).toBe('http://a/')
  })

  it('takes IPv6 hosts in brackets, and IPv4 in any WHATWG form', () => {
    expect(buildUrl({ protocol: 'http', hostname: '[::1]', port: 8080 }).host).toBe('[::1]:8080')
    expect(buildUrl({ protocol: 'http', hostname: '0x7f000001' }).hostname).toBe('127.0.0.1')
  })

  it('builds URLs without a host: opaque paths, file: and non-special', () => {
    expect(buildUrl({ protocol: 'mailto', pathname: 'a@b.c', query: [['subject', 'Hi?']] }).href).toBe(
      'mailto:a@b.c?subject=Hi%3F',
    )
    expect(buildUrl({ protocol: 'urn', pathname: 'isbn:0451450523?#' }).pathname).toBe(
      'isbn:0451450523%3F%23',
    )
    expect(buildUrl({ protocol: 'file', pathname: '/etc/hosts' }).href).toBe('file:///etc/hosts')
    expect(buildUrl({ protocol: 'sc', pathname: '//x' }).href).toBe('sc:/.//x')
    expect(buildUrl({ protocol: 'sc', hostname: 'h' }).href).toBe('sc://h')
    expect(buildUrl({ protocol: 'sc', hostname: '' }).href).toBe('sc://')
  })

  it('refuses a bad protocol with the position of the bad character', () => {
    expect(refused({ protocol: 'ht tp', hostname: 'a' })).toEqual({
      field: 'protocol',
      input: 'ht tp',
      reason: 'invalid_scheme',
      position: 2,
    })
    expect(refused({ protocol: '1http', hostname: 'a' })).toMatchObject({ position: 0 })
  })

  it('refuses a hostname that is not a bare host, or not a valid one', () => {
    expect(refused({ protocol: 'http', hostname: 'a.com:80' })).toMatchObject({
      field: 'hostname',
      reason: 'forbidden_host_code_point',
      position: 5,
    })
    expect(refused({ protocol: 'http', hostname: 'u@a.com' })).toMatchObject({ position: 1 })
    expect(refused({ protocol: 'http', hostname: 'a.com/x' })).toMatchObject({ position: 5 })
    expect(refused({ protocol: 'http', hostname: 'exa mple.com' })).toMatchObject({
      field: 'hostname',
      input: 'exa mple.com',
      reason: 'forbidden_host_code_point',
      position: 3,
    })
    expect(refused({ protocol: 'http', hostname: 'a.com ' })).toMatchObject({ position: 5 })
    expect(refused({ protocol: 'https', hostname: '256.0.0.1' })).toMatchObject({ reason: 'invalid_ipv4' })
    expect(refused({ protocol: 'http', hostname: '[::g]' })).toMatchObject({ reason: 'invalid_ipv6' })
    expect(refused({ protocol: 'http', hostname: '' })).toMatchObject({ reason: 'empty_host' })
    expect(refused({ protocol: 'https' })).toMatchObject({ field: 'hostname', reason: 'empty_host' })
  })

  it('refuses ports, credentials and ports the URL cannot hold', () => {
    expect(refused({ protocol: 'http', hostname: 'a', port: 65536 })).toMatchObject({
      field: 'port',
      reason: 'invalid_port',
    })
    expect(refused({ protocol: 'http', hostname: 'a', port: '8o' })).toMatchObject({ reason: 'invalid_port' })
    expect(refused({ protocol: 'http', hostname: 'a', port: -1 })).toMatchObject({ reason: 'invalid_port' })
    expect(refused({ protocol: 'file', hostname: 'h', port: 1 })).toMatchObject({
      reason: 'port_not_allowed',
    })
    expect(refused({ protocol: 'mailto', pathname: 'x', username: 'u' })).toMatchObject({
      field: 'username',
      reason: 'credentials_not_allowed',
    })
    expect(refused({ protocol: 'sc', hostname: '', password: 'p' })).toMatchObject({ field: 'password' })
  })

  it('gives the same result as parsing its own href', () => {
    const part = fc.string({ unit: 'binary', maxLength: 10 })
    fc.assert(
      fc.property(
        fc.domain(),
        fc.option(fc.nat({ max: 65535 }), { nil: undefined }),
        part,
        part,
        part,
        (hostname, port, pathname, search, hash) => {
          const built = buildUrl({ protocol: 'https', hostname, port, pathname, search, hash })
          expect(parseUrl({ url: built.href })).toEqual(built)
        },
      ),
      { numRuns: 300 },
    )
  })
})
