import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseJsonExact } from '../../src/ops/json/number.ts'
import { queryJson } from '../../src/ops/json/query/query.ts'
import { jsonEqual } from '../../src/ops/json/value.ts'
import { pageBlock } from './table.ts'

// jsonpath-standard/jsonpath-compliance-test-suite (cts.json), vendored under
// test/fixtures/conformance/jsonpath/ (see PROVENANCE.md), run against json/query: every case passes.
// A case with `results` (several orders allowed: object members have none) passes with any of them.

const JSONPATH_CTS_COMMIT = '7be7c1fc28057c91e8eefaf197060fba7ed43acd'

interface Case {
  name: string
  selector: string
  document?: unknown
  invalid_selector?: boolean
  result?: unknown[]
  result_paths?: string[]
  results?: unknown[][]
  results_paths?: string[][]
}

const cases = (
  parseJsonExact(
    readFileSync(new URL('../fixtures/conformance/jsonpath/cts.json', import.meta.url), 'utf8'),
  ) as {
    tests: Case[]
  }
).tests
const BOUNDS = { maxResults: 1_000_000, maxBytes: 1e9, maxSteps: 10_000_000 }

function passes(c: Case): boolean {
  let answer: ReturnType<typeof queryJson> | undefined
  let code: string | undefined
  try {
    answer = queryJson({ document: c.document, path: c.selector }, BOUNDS)
  } catch (err) {
    code = (err as { code?: string }).code
  }
  if (c.invalid_selector) return code === 'ERR_INVALID_JSONPATH'
  if (answer === undefined) return false
  const expected: [unknown[], string[] | undefined][] = c.results
    ? c.results.map((r, i) => [r, c.results_paths?.[i]])
    : [[c.result!, c.result_paths]]
  return expected.some(
    ([values, paths]) =>
      jsonEqual(values, answer.values) && (paths === undefined || jsonEqual(paths, answer.paths)),
  )
}

describe('JSONPath Compliance Test Suite (cts.json)', () => {
  const failed = cases.filter((c) => !passes(c)).map((c) => `${c.name}: ${c.selector}`)

  it('holds its cases', () => {
    expect(cases.length).toBe(703)
  })

  it('passes every case', () => {
    expect(failed).toEqual([])
  })

  it('its result is the table of docs/conformance.md', () => {
    const [page, measured] = pageBlock('jsonpath', [
      {
        suite: 'jsonpath-compliance-test-suite',
        commit: JSONPATH_CTS_COMMIT,
        part: 'cts.json',
        passed: cases.length - failed.length,
        total: cases.length,
      },
    ])
    expect(page, 'run UPDATE_CONFORMANCE=1 npx vitest run test/conformance/ to rewrite it').toBe(measured)
  })
})
