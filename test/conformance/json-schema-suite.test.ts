import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parseJsonExact } from '../../src/ops/json/number.ts'
import { type CompiledSchema, compile } from '../../src/ops/json/validate/compile.ts'
import { Context } from '../../src/ops/json/validate/context.ts'
import type { Dialect } from '../../src/ops/json/validate/types.ts'
import { validateOne } from '../../src/ops/json/validate/validate.ts'
import { pageBlock, type Row } from './table.ts'

// json-schema-org/JSON-Schema-Test-Suite, vendored under test/fixtures/conformance/json-schema/ (see
// PROVENANCE.md), run against the validator. Every required test of every dialect must pass; the optional
// ones (formats asserted, bignum, ecmascript-regex, ...) are counted and reported in docs/conformance.md.
// Remote references are served from the suite's own remotes/ (as http://localhost:1234/...), never fetched.
// The files are parsed losslessly, as the endpoint parses a body: 1.0 stays 1.0, big numbers exact.

const JSON_SCHEMA_SUITE_COMMIT = '44401e0c046704b476ec9d2e2fccdaee618f259d'
const ROOT = fileURLToPath(new URL('../fixtures/conformance/json-schema/', import.meta.url))
const DIALECTS: [string, Dialect][] = [
  ['draft2020-12', '2020-12'],
  ['draft2019-09', '2019-09'],
  ['draft7', 'draft-07'],
  ['draft6', 'draft-06'],
  ['draft4', 'draft-04'],
]

const filesUnder = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((f) => (statSync(join(dir, f)).isDirectory() ? filesUnder(join(dir, f)) : [join(dir, f)]))

const remotes = new Map(
  filesUnder(join(ROOT, 'remotes')).map((f) => [
    `http://localhost:1234/${relative(join(ROOT, 'remotes'), f)}`,
    parseJsonExact(readFileSync(f, 'utf8')),
  ]),
)

interface Group {
  description: string
  schema: unknown
  tests: { description: string; data: unknown; valid: boolean }[]
}

interface Outcome {
  file: string
  group: string
  test: string
  expected: boolean
  got: boolean | string
}

// Every test of a dialect's folder (required) or of its optional/ folder, formats asserted there.
function runSuite(folder: string, dialect: Dialect, optional: boolean): Outcome[] {
  const dir = join(ROOT, 'tests', folder)
  const outcomes: Outcome[] = []
  for (const path of filesUnder(dir)) {
    const file = relative(dir, path)
    if (file.startsWith('optional/') !== optional) continue
    for (const group of parseJsonExact(readFileSync(path, 'utf8')) as Group[]) {
      let compiled: CompiledSchema | undefined
      let refused = ''
      try {
        compiled = compile(
          group.schema,
          { formatAssertion: file.startsWith('optional/format/'), dialect },
          remotes,
        )
      } catch (err) {
        refused = `refused: ${(err as Error).message}`
      }
      for (const test of group.tests) {
        let got: boolean | string = refused
        if (compiled !== undefined) {
          try {
            got = validateOne(compiled, test.data, new Context(100, 1_000_000, compiled.resource)).valid
          } catch (err) {
            got = `threw: ${(err as Error).message}`
          }
        }
        outcomes.push({ file, group: group.description, test: test.description, expected: test.valid, got })
      }
    }
  }
  return outcomes
}

const rows: Row[] = []

describe('JSON-Schema-Test-Suite', () => {
  for (const [folder, dialect] of DIALECTS) {
    describe(folder, () => {
      const required = runSuite(folder, dialect, false)
      const optional = runSuite(folder, dialect, true)
      const passed = (list: Outcome[]) => list.filter((o) => o.got === o.expected).length
      rows.push(
        {
          suite: 'JSON-Schema-Test-Suite',
          commit: JSON_SCHEMA_SUITE_COMMIT,
          part: `${folder} required`,
          passed: passed(required),
          total: required.length,
        },
        {
          suite: 'JSON-Schema-Test-Suite',
          commit: JSON_SCHEMA_SUITE_COMMIT,
          part: `${folder} optional (formats asserted)`,
          passed: passed(optional),
          total: optional.length,
        },
      )

      it('has its tests', () => {
        expect(required.length).toBeGreaterThan(600)
      })

      it('passes every required test', () => {
        expect(required.filter((o) => o.got !== o.expected)).toEqual([])
      })
    })
  }

  it('its results are the table of docs/conformance.md', () => {
    const [page, measured] = pageBlock('json-schema', rows)
    expect(page, 'run UPDATE_CONFORMANCE=1 npx vitest run test/conformance/ to rewrite it').toBe(measured)
  })
})
