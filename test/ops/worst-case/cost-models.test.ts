import { describe, expect, it } from 'vitest'
import { heavyInput, INLINE_BUDGET_US, inlineBound, inlineUpTo } from '../../../src/exec/costs.ts'
import { CATALOG } from '../../../src/ops/catalog.ts'
import { prettyOutputBound } from '../../../src/ops/json/format/cost.ts'
import { opNamed } from '../../helpers/ops.ts'

const KiB = 1024
// json/format's own inline output estimate (src/ops/json/format/format.op.ts)
const INLINE_OUTPUT_BYTES = 64 * KiB
const heavy = (name: string, input: unknown): boolean => heavyInput(opNamed(name), input)

describe('cost models (src/exec/costs.ts, docs/dispatch.md#cost-models)', () => {
  it('derives every inline bound from the declared worst case: no inline request over ~1 ms', () => {
    for (const op of CATALOG.ops) {
      const cost = op.cost
      expect(inlineUpTo(op), op.name).toBe(inlineBound(cost))
      expect((cost.usPerKiB * inlineUpTo(op)) / KiB, op.name).toBeLessThanOrEqual(INLINE_BUDGET_US)
      expect(cost.worst.length, op.name).toBeGreaterThan(0)
    }
    expect(inlineBound({ usPerKiB: 300 })).toBe(2 * KiB)
    expect(inlineBound({ usPerKiB: 5000 })).toBe(1 * KiB)
  })

  it('json/format: pretty output that may pass the inline estimate, and sort_keys past 8 KiB, go to the pool', () => {
    const deep = '['.repeat(2800) + ']'.repeat(2800)
    expect(heavy('json.format', { input: deep, indent: 8 })).toBe(true)
    expect(heavy('json.format', { input: deep, mode: 'minify' })).toBe(false)
    expect(heavy('json.format', { input: '{"a":[1,2,{"b":null}]}', indent: 2 })).toBe(false)
    expect(
      heavy('json.format', { input: `{${'"k":1,'.repeat(2000)}"z":0}`, sort_keys: true, mode: 'minify' }),
    ).toBe(true)
    // strings hide brackets and commas
    expect(prettyOutputBound(`["${'[,'.repeat(1000)}"]`, 8, Number.POSITIVE_INFINITY)).toBeLessThan(2100)
    expect(prettyOutputBound(deep, 8, INLINE_OUTPUT_BYTES)).toBeGreaterThan(INLINE_OUTPUT_BYTES)
  })

  it('json/patch with copy, normalize with runs past 30 marks, public-key JWT verification: heavy', () => {
    expect(heavy('json.patch', { document: {}, patch: [{ op: 'copy', from: '', path: '/a' }] })).toBe(true)
    expect(heavy('json.patch', { document: {}, patch: [{ op: 'add', path: '/a', value: 1 }] })).toBe(false)
    expect(heavy('text.normalize', { input: `a${'\u0301'.repeat(31)}` })).toBe(true)
    expect(heavy('text.normalize', { input: `a${'\u0301'.repeat(30)}`.repeat(100) })).toBe(false)
    expect(heavy('jwt.verify', { token: 'x', public_key: '-----BEGIN PUBLIC KEY-----' })).toBe(true)
    expect(heavy('jwt.verify', { token: 'x', jwks: { keys: [{ kty: 'RSA' }] } })).toBe(true)
    expect(heavy('jwt.verify', { token: 'x', jwks: { keys: [{ kty: 'oct', k: 'AA' }] } })).toBe(false)
    expect(heavy('jwt.verify', { token: 'x', secret: 's' })).toBe(false)
  })

  it('bounded ops go to the pool when asked for much work', () => {
    expect(heavy('id.nanoid', { size: 255, count: 1000 })).toBe(true)
    expect(heavy('id.nanoid', { size: 21, count: 10 })).toBe(false)
    expect(heavy('id.uuid', { version: 7, count: 1000 })).toBe(true)
    expect(heavy('id.uuid', { version: 4 })).toBe(false)
    expect(heavy('cron.parse', { expression: '* * * * *', count: 100 })).toBe(true)
    expect(heavy('cron.parse', { expression: '* * * * *' })).toBe(false)
  })
})
