import { describe, expect, it } from 'vitest'
import {
  MAX_INSTANCE_DEPTH,
  MAX_REF_CHAIN,
  MAX_SCHEMA_DEPTH,
  type ValidateBounds,
} from '../../../../src/ops/json/validate/types.ts'
import { type InstanceResult, validateJson } from '../../../../src/ops/json/validate/validate.ts'

// Every bound of json/validate, at the bound and one past it, and the worst inputs found (each answered
// in well under a second: a 400, a 422 or an answer, never a hang).

const BOUNDS: ValidateBounds = { maxInstances: 100, maxErrors: 100, maxSteps: 1_000_000 }

function refusal(run: () => unknown): { code: string; message: string; details?: Record<string, unknown> } {
  try {
    run()
  } catch (err) {
    return err as { code: string; message: string }
  }
  throw new Error('not refused')
}

const nest = (levels: number, key: string, inner: unknown = {}): unknown => {
  let value = inner
  for (let i = 0; i < levels; i++) value = { [key]: value }
  return value
}
const arrays = (levels: number): unknown => {
  let value: unknown = 0
  for (let i = 0; i < levels; i++) value = [value]
  return value
}
// a chain of `refs` references, each to the next, that never moves into the instance
const refChain = (refs: number) => {
  const $defs: Record<string, unknown> = {}
  for (let i = 1; i < refs; i++) $defs[`r${i}`] = { $ref: `#/$defs/r${i + 1}` }
  $defs[`r${refs}`] = { type: 'integer' }
  return { $ref: '#/$defs/r1', $defs }
}

describe('json/validate bounds', () => {
  it('takes maxInstances instances and refuses one more', () => {
    const bounds = { ...BOUNDS, maxInstances: 3 }
    const at = validateJson({ schema: true, instances: [1, 2, 3] }, bounds) as { results: unknown[] }
    expect(at.results).toHaveLength(3)
    const past = refusal(() => validateJson({ schema: true, instances: [1, 2, 3, 4] }, bounds))
    expect(past.code).toBe('ERR_VALIDATION')
  })

  it('keeps maxErrors output units over all the instances and counts the rest', () => {
    const bounds = { ...BOUNDS, maxErrors: 3 }
    const at = validateJson({ schema: { required: ['a', 'b', 'c'] }, instance: {} }, bounds) as InstanceResult
    expect([at.errors.length, at.errors_omitted]).toEqual([3, 0])
    const past = validateJson(
      { schema: { required: ['a', 'b', 'c', 'd'] }, instance: {} },
      bounds,
    ) as InstanceResult
    expect([past.errors.length, past.errors_omitted]).toEqual([3, 1])
    const many = validateJson({ schema: { type: 'string' }, instances: [1, 2, 3, 4, 5] }, bounds) as {
      results: InstanceResult[]
      errors_omitted: number
    }
    expect(many.results.map((r) => r.errors.length)).toEqual([1, 1, 1, 0, 0])
    expect(many.results.every((r) => !r.valid)).toBe(true)
    expect(many.errors_omitted).toBe(2)
  })

  it('evaluates maxSteps schema nodes and refuses one more with ERR_COMPUTE_LIMIT', () => {
    // the root and properties/a: two steps
    const input = { schema: { properties: { a: { type: 'integer' } } }, instance: { a: 1 } }
    expect((validateJson(input, { ...BOUNDS, maxSteps: 2 }) as InstanceResult).valid).toBe(true)
    expect(refusal(() => validateJson(input, { ...BOUNDS, maxSteps: 1 })).code).toBe('ERR_COMPUTE_LIMIT')
  })

  it(`reads a schema nested ${MAX_SCHEMA_DEPTH} levels and refuses one deeper`, () => {
    expect(
      (validateJson({ schema: nest(MAX_SCHEMA_DEPTH, 'not'), instance: 1 }, BOUNDS) as InstanceResult).valid,
    ).toBe(true)
    const past = refusal(() =>
      validateJson({ schema: nest(MAX_SCHEMA_DEPTH + 1, 'not'), instance: 1 }, BOUNDS),
    )
    expect(past.code).toBe('ERR_INVALID_SCHEMA')
  })

  it(`walks an instance ${MAX_INSTANCE_DEPTH} levels deep and refuses one deeper`, () => {
    const schema = { items: { $ref: '#' } }
    expect(
      (validateJson({ schema, instance: arrays(MAX_INSTANCE_DEPTH) }, BOUNDS) as InstanceResult).valid,
    ).toBe(true)
    expect(
      refusal(() => validateJson({ schema, instance: arrays(MAX_INSTANCE_DEPTH + 1) }, BOUNDS)).code,
    ).toBe('ERR_VALIDATION')
  })

  it(`follows ${MAX_REF_CHAIN} references in a row and refuses one more as a loop`, () => {
    expect(
      (validateJson({ schema: refChain(MAX_REF_CHAIN), instance: 1 }, BOUNDS) as InstanceResult).valid,
    ).toBe(true)
    const past = refusal(() => validateJson({ schema: refChain(MAX_REF_CHAIN + 1), instance: 1 }, BOUNDS))
    expect(past.code).toBe('ERR_INVALID_SCHEMA')
  })
})

describe('json/validate worst inputs', () => {
  it('refuses reference cycles instead of recursing: {"$ref": "#"} and a two-schema loop', () => {
    expect(refusal(() => validateJson({ schema: { $ref: '#' }, instance: 1 }, BOUNDS))).toMatchObject({
      code: 'ERR_INVALID_SCHEMA',
      details: { reason: 'ref_cycle' },
    })
    const loop = { $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } }
    expect(refusal(() => validateJson({ schema: loop, instance: 1 }, BOUNDS)).code).toBe('ERR_INVALID_SCHEMA')
  })

  it('runs an exponential-backtracking pattern in linear time', () => {
    const started = performance.now()
    const result = validateJson(
      { schema: { pattern: '^(a+)+$' }, instance: `${'a'.repeat(100_000)}!` },
      BOUNDS,
    )
    expect((result as InstanceResult).valid).toBe(false)
    // V8's backtracking engine takes longer than the age of the universe here; RE2 a few milliseconds
    expect(performance.now() - started).toBeLessThan(2000)
  })

  it('refuses patterns that cannot run in linear time, naming them: lookaround, backreferences', () => {
    for (const pattern of ['(?=a)b', '(?<!a)b', '(a)\\1', '(?<n>a)\\k<n>']) {
      const err = refusal(() => validateJson({ schema: { pattern }, instance: 'a' }, BOUNDS))
      expect(err.code).toBe('ERR_UNSUPPORTED_REGEX')
      expect(err.details).toMatchObject({ pattern, schema_location: '/pattern' })
    }
  })

  it('stops an exponential fan-out of references at the step budget (ERR_COMPUTE_LIMIT)', () => {
    const $defs: Record<string, unknown> = { d40: { type: 'string' } }
    for (let i = 0; i < 40; i++)
      $defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] }
    const err = refusal(() => validateJson({ schema: { $ref: '#/$defs/d0', $defs }, instance: 1 }, BOUNDS))
    expect(err.code).toBe('ERR_COMPUTE_LIMIT')
  })

  it('looks a value up in a 100k-member enum and finds duplicates among 100k items in one pass each', () => {
    const members = Array.from({ length: 100_000 }, (_, i) => ({ k: i }))
    const started = performance.now()
    const found = validateJson(
      { schema: { enum: members }, instances: [{ k: 99_999 }, { k: 100_000 }] },
      BOUNDS,
    ) as {
      results: InstanceResult[]
    }
    expect(found.results.map((r) => r.valid)).toEqual([true, false])
    const unique = validateJson(
      { schema: { uniqueItems: true }, instance: [...members, { k: 5 }] },
      BOUNDS,
    ) as InstanceResult
    expect(unique.errors[0]?.message).toBe('items 5 and 100000 are equal')
    expect(performance.now() - started).toBeLessThan(5000)
  })

  it('names an unresolvable reference (never fetched) in a 400', () => {
    for (const ref of ['https://example.com/remote.json', '#/$defs/missing', '#nowhere']) {
      const err = refusal(() => validateJson({ schema: { $ref: ref }, instance: 1 }, BOUNDS))
      expect(err.code).toBe('ERR_SCHEMA_REF_UNRESOLVED')
      expect(err.message).toContain(ref)
      expect(err.details).toMatchObject({ ref })
    }
  })
})
