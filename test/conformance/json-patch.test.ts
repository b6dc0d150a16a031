import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../helpers/harness.ts'

// json-patch/json-patch-tests, vendored under test/fixtures/conformance/ (see PROVENANCE.md), run through the endpoint.
const SUITE = new URL('../fixtures/conformance/json-patch/', import.meta.url)

interface PatchCase {
  comment?: string
  doc: unknown
  patch: unknown[]
  expected?: unknown
  error?: string
  disabled?: boolean
}

function load(name: string): PatchCase[] {
  return JSON.parse(readFileSync(new URL(name, SUITE), 'utf8')) as PatchCase[]
}

for (const [file, size] of [
  ['tests.json', 92],
  ['spec_tests.json', 16],
] as const) {
  describe(`json-patch-tests ${file} through POST /v1/json/patch`, () => {
    const cases = load(file).filter((c) => !c.disabled)
    let t: TestApp
    beforeAll(async () => {
      t = await startTestApp({ unthrottled: true })
    })
    afterAll(() => t.close())

    it(`holds ${size} enabled cases`, () => {
      expect(cases).toHaveLength(size)
    })

    cases.forEach((c, i) => {
      it(`#${i} ${c.comment ?? c.error ?? ''}`, async () => {
        const res = await t.post('/v1/json/patch', { document: c.doc, patch: c.patch })
        if (c.error !== undefined) {
          expect(res.statusCode, res.body).toBe(400)
          expect(['ERR_INVALID_PATCH', 'ERR_PATCH_TEST_FAILED']).toContain(res.json().error.code)
          expect(res.json().error.details.index).toBeTypeOf('number')
        } else {
          expect(res.statusCode, res.body).toBe(200)
          if ('expected' in c) expect(res.json().data.result).toEqual(c.expected)
        }
      })
    })
  })
}
