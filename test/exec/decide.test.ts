import { describe, expect, it } from 'vitest'
import { inlineUpTo } from '../../src/exec/costs.ts'
import { decideExecution, declaredBodyBytes, modeFor } from '../../src/exec/decide.ts'
import { DEFAULT_PLANS } from '../../src/limits/plans.ts'
import { opNamed } from '../helpers/ops.ts'

const limits = DEFAULT_PLANS.pro
const JSON_TYPE = 'application/json'
const OCTETS = 'application/octet-stream'

describe('decideExecution (one decision per request, before the body is read)', () => {
  const bound = (op: string) => inlineUpTo(opNamed(op), limits)
  // [op, declared bytes (undefined: chunked), content type] → [mode, rawBody, heavyCheck]
  const table: [string, number | undefined, string, 'inline' | 'pool' | 'stream', boolean, boolean][] = [
    ['json.diff', 0, JSON_TYPE, 'inline', false, false],
    ['json.diff', bound('json.diff') - 1, JSON_TYPE, 'inline', false, false],
    ['json.diff', bound('json.diff'), JSON_TYPE, 'pool', true, false],
    ['json.diff', undefined, JSON_TYPE, 'pool', true, false],
    ['json.patch', bound('json.patch') + 1, JSON_TYPE, 'pool', true, false],
    ['text.inspect', bound('text.inspect') - 1, JSON_TYPE, 'inline', false, false],
    // every op parses a pooled body on the worker (OpDescriptor.body)
    ['text.inspect', bound('text.inspect'), JSON_TYPE, 'pool', true, false],
    ['text.inspect', undefined, JSON_TYPE, 'pool', true, false],
    ['url.build', bound('url.build'), JSON_TYPE, 'pool', true, false],
    ['jwt.decode', undefined, JSON_TYPE, 'pool', true, false],
    // routes with a handler of their own (hash, hmac, base64, json/format) too: the handler's additions
    // (the path's algorithm, a raw-bytes answer) travel with the body (defineRoute's pooled)
    ['hash', 10_000_000, JSON_TYPE, 'pool', true, false],
    ['hmac', 10_000_000, JSON_TYPE, 'pool', true, false],
    ['hash', 100, JSON_TYPE, 'inline', false, false],
    ['hash', 100, OCTETS, 'stream', false, false],
    ['hash', undefined, OCTETS, 'stream', false, false],
    ['json.format', 5, `${OCTETS}; foo=bar`, 'stream', false, false],
    ['jwt.sign', 300, JSON_TYPE, 'inline', false, true],
    ['jwt.verify', 300, JSON_TYPE, 'inline', false, true],
    ['jwt.sign', undefined, JSON_TYPE, 'pool', true, false],
    // ops whose schema bounds their work: the body's parse is their worst case, so a large or chunked body
    // goes to the pool (parsed, and refused by the schema, there)
    ['id.uuid.inspect', undefined, JSON_TYPE, 'pool', true, false],
    ['time.timestamp', 10_000_000, JSON_TYPE, 'pool', true, false],
    ['time.timestamp', bound('time.timestamp') - 1, JSON_TYPE, 'inline', false, false],
    // ops whose schema bounds the body but whose work grows with what is asked (count): a heavy case, so a
    // small declared body is checked after parsing and a chunked one goes to the pool
    ['id.uuid', 100, JSON_TYPE, 'inline', false, true],
    ['id.uuid', undefined, JSON_TYPE, 'pool', true, false],
    ['cron.parse', undefined, JSON_TYPE, 'pool', true, false],
  ]
  it.each(table)('%s, %s bytes, %s → %s', (name, declaredBytes, contentType, mode, rawBody, heavyCheck) => {
    const op = opNamed(name)
    const decision = decideExecution({ op, limits, declaredBytes, contentType })
    expect(decision).toEqual({ op, declaredBytes, mode, rawBody, heavyCheck })
  })

  it('is pure: the same facts give the same value', () => {
    const input = { op: opNamed('json.patch'), limits, declaredBytes: 70_000, contentType: JSON_TYPE }
    expect(decideExecution(input)).toEqual(decideExecution(input))
  })

  it('an inline decision goes to the pool only for a heavy input (asymmetric keys)', () => {
    const sign = decideExecution({
      op: opNamed('jwt.sign'),
      limits,
      declaredBytes: 300,
      contentType: JSON_TYPE,
    })
    expect(modeFor(sign, { algorithm: 'HS256' })).toBe('inline')
    expect(modeFor(sign, { algorithm: 'RS256' })).toBe('pool')
    expect(modeFor(sign, { algorithm: 'PS384' })).toBe('pool')
    expect(modeFor(sign, { algorithm: 'ES256' })).toBe('pool')
    const verify = decideExecution({
      op: opNamed('jwt.verify'),
      limits,
      declaredBytes: 300,
      contentType: JSON_TYPE,
    })
    expect(modeFor(verify, { token: 't', secret: 's' })).toBe('inline')
    expect(modeFor(verify, { token: 't', public_key: 'pem' })).toBe('pool')
    expect(modeFor(verify, { token: 't', jwks: { keys: [{ kty: 'RSA' }] } })).toBe('pool')
    // a JWKS of shared secrets only is HMAC work, bounded by the body's size
    expect(modeFor(verify, { token: 't', jwks: { keys: [{ kty: 'oct' }] } })).toBe('inline')
    // input never moves work off the pool
    const pooled = decideExecution({
      op: opNamed('json.diff'),
      limits,
      declaredBytes: undefined,
      contentType: JSON_TYPE,
    })
    expect(modeFor(pooled, {})).toBe('pool')
  })
})

describe('declaredBodyBytes', () => {
  it.each([
    [{ 'content-length': '42' }, 1, 42],
    [{ 'content-length': '0' }, 2, 0],
    [{ 'content-length': '4x' }, 1, undefined],
    [{ 'transfer-encoding': 'chunked' }, 1, undefined],
    // HTTP/1.1 with neither header has no body; an HTTP/2 stream without the header may carry any
    [{}, 1, 0],
    [{}, 2, undefined],
  ])('%o over HTTP/%i → %s', (headers, version, expected) => {
    expect(declaredBodyBytes(headers, version)).toBe(expected)
  })
})
