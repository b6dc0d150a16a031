import { describe, expect, it } from 'vitest'
import { queryIsHeavy, queryWorst } from '../../../src/ops/json/query/cost.ts'
import { queryJson } from '../../../src/ops/json/query/query.ts'
import { validateIsHeavy, validateWorst } from '../../../src/ops/json/validate/cost.ts'
import { validateJson } from '../../../src/ops/json/validate/validate.ts'

// The cost models' inputs: the worst bodies are about the size asked and end at the step budget; the
// heavy predicates send what may be expensive to the pool.

function refusal(run: () => unknown): string | undefined {
  try {
    run()
  } catch (err) {
    return (err as { code?: string }).code
  }
  return undefined
}

describe('json/validate and json/query cost models', () => {
  it('the worst bodies weigh about what is asked and stop at the step budget', () => {
    for (const bytes of [4096, 65_536]) {
      const validate = validateWorst(bytes)
      expect(JSON.stringify(validate).length).toBeGreaterThan(bytes * 0.9)
      expect(JSON.stringify(validate).length).toBeLessThanOrEqual(bytes)
      const query = queryWorst(bytes)
      expect(JSON.stringify(query).length).toBeGreaterThan(bytes * 0.9)
      expect(JSON.stringify(query).length).toBeLessThanOrEqual(bytes)
    }
    const steps = 100_000
    expect(
      refusal(() =>
        validateJson(validateWorst(65_536), { maxInstances: 1e6, maxErrors: 10, maxSteps: steps }),
      ),
    ).toBe('ERR_COMPUTE_LIMIT')
    expect(
      refusal(() => queryJson(queryWorst(65_536), { maxResults: 1e6, maxBytes: 1e9, maxSteps: steps })),
    ).toBe('ERR_COMPUTE_LIMIT')
  })

  it('every validation is heavy; a query is when it filters or descends', () => {
    expect(validateIsHeavy()).toBe(true)
    expect(queryIsHeavy({ path: "$.store.book[0:10]['title', 'price']" })).toBe(false)
    expect(queryIsHeavy({ path: '$.store.*[-1]' })).toBe(false)
    expect(queryIsHeavy({ path: '$..book' })).toBe(true)
    expect(queryIsHeavy({ path: '$.book[?@.price < 10]' })).toBe(true)
    // a large body arrives unparsed: not known, so heavy
    expect(queryIsHeavy({})).toBe(true)
  })
})
