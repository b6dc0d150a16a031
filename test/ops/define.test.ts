import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineOp } from '../../src/ops/define.ts'

// What defineOp checks that a type cannot (src/ops/define.ts).
const base = {
  name: 'text.slug',
  family: 'text',
  http: { path: '/v1/text/slug' as const, operationId: 'x', summary: 's', description: 'd' },
  body: z.strictObject({ input: z.string() }),
  response: z.object({ slug: z.string() }),
  run: () => ({ slug: '' }),
  cost: { worst: 'w', usPerKiB: 1 },
  worst: () => ({ input: '' }),
  examples: [{ summary: 'e', body: { input: '' }, data: { slug: '' } }],
}

describe('defineOp', () => {
  it('takes a well-formed op as it is', () => {
    expect(defineOp(base)).toBe(base)
    expect(defineOp({ ...base, name: 'hash' }).name).toBe('hash')
  })

  it('refuses a name that is not family[.verb] in lower case', () => {
    expect(() => defineOp({ ...base, name: 'Text.Slug' })).toThrow(/family\[\.verb\]/)
    expect(() => defineOp({ ...base, name: 'text..slug' })).toThrow(/family\[\.verb\]/)
  })

  it('refuses a path with parameters but no params schema, or a params schema on a plain path', () => {
    expect(() => defineOp({ ...base, http: { ...base.http, path: '/v1/text/:form' } })).toThrow(
      /params schema/,
    )
  })

  it('refuses caps named outside the family, or that shrink from free to business', () => {
    const cap = { free: 1, pro: 2, business: 3, describe: 'c' }
    expect(() => defineOp({ ...base, caps: { slug_max: cap } })).toThrow(/start with "text_"/)
    expect(() => defineOp({ ...base, caps: { text_max: { ...cap, pro: 4 } } })).toThrow(/must not shrink/)
    expect(defineOp({ ...base, caps: { text_max: cap } }).caps?.text_max).toBe(cap)
  })

  it('refuses an op without examples, or an example that answers with none or two of data, error, bytes', () => {
    expect(() => defineOp({ ...base, examples: [] })).toThrow(/no example/)
    expect(() => defineOp({ ...base, examples: [{ summary: 'e', body: { input: '' } }] })).toThrow(
      /one of data/,
    )
    expect(() => defineOp({ ...base, examples: [{ summary: 'e', data: {}, bytes: 'x' }] })).toThrow(
      /one of data/,
    )
  })

  it('refuses a job op that declares caps (a job record does not carry them)', () => {
    const cap = { free: 1, pro: 2, business: 3, describe: 'c' }
    expect(() => defineOp({ ...base, job: {}, caps: { text_max: cap } })).toThrow(/cannot run as a job/)
  })
})
