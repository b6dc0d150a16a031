import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { isAppError } from '../../src/errors.ts'
import { convertData, defaultBounds, MAX_DEPTH } from '../../src/ops/data/convert.ts'
import { readCsv } from '../../src/ops/data/csv/read.ts'
import { readJson } from '../../src/ops/data/json/read.ts'
import type { DataValue } from '../../src/ops/data/model/value.ts'
import { readToml } from '../../src/ops/data/toml/read.ts'
import { writeToml } from '../../src/ops/data/toml/write.ts'
import { readYaml } from '../../src/ops/data/yaml/read.ts'
import { writeYaml } from '../../src/ops/data/yaml/write.ts'
import { fromTagged, jsonTexts, sameValue } from './data-values.ts'

// The data/convert suites (docs/api.md, "Data"): yaml-test-suite, toml-test for TOML 1.0 (decoder and
// encoder), RFC 4180's examples. Each counts what passed; the last test holds docs/conformance.md's table to
// those counts (UPDATE_CONFORMANCE=1 writes it).

const ROOT = fileURLToPath(new URL('../fixtures/conformance/', import.meta.url))
const DOC = fileURLToPath(new URL('../../docs/conformance.md', import.meta.url))
const MAX = 1 << 28
const results: { suite: string; commit: string; what: string; passed: number; total: number }[] = []

function record(suite: string, commit: string, what: string, failures: string[], total: number): void {
  results.push({ suite, commit, what, passed: total - failures.length, total })
}

function refusal(run: () => unknown): unknown {
  try {
    run()
    return undefined
  } catch (err) {
    return err
  }
}

describe('yaml-test-suite (data-2022-01-17)', () => {
  const SUITE = join(ROOT, 'yaml-test-suite')
  const COMMIT = '6e6c296a'
  const cases = readdirSync(SUITE)
    .filter((id) => statSync(join(SUITE, id)).isDirectory())
    .flatMap((id) =>
      existsSync(join(SUITE, id, 'in.yaml'))
        ? [id]
        : readdirSync(join(SUITE, id)).map((sub) => `${id}/${sub}`),
    )
  const text = (id: string, file: string) => readFileSync(join(SUITE, id, file), 'utf8')
  // an `error` case may have an `in.json` of what comes before its error (9MQT/01, DK95/01, DK95/06)
  const errors = cases.filter((id) => existsSync(join(SUITE, id, 'error')))
  const withJson = cases.filter((id) => existsSync(join(SUITE, id, 'in.json')) && !errors.includes(id))
  const others = cases.filter((id) => !withJson.includes(id) && !errors.includes(id))

  it('reads every case that has a JSON expectation as that JSON (a stream as its documents)', () => {
    const failures = withJson.filter((id) => {
      const expected = jsonTexts(text(id, 'in.json')).map((json) => readJson(json, MAX_DEPTH))
      try {
        return !sameValue(readYaml(text(id, 'in.yaml'), true, MAX_DEPTH).value, expected)
      } catch {
        return true
      }
    })
    record('yaml-test-suite', COMMIT, 'cases with `in.json`: read as that JSON', failures, withJson.length)
    expect(withJson.length).toBe(276)
    expect(failures).toEqual([])
  })

  it('writes each of them back as YAML that reads as the same JSON', () => {
    const failures = withJson.filter((id) => {
      const expected = jsonTexts(text(id, 'in.json')).map((json) => readJson(json, MAX_DEPTH))
      const written = writeYaml(expected, { indent: 2, stream: true, maxBytes: MAX })
      return !sameValue(readYaml(written, true, MAX_DEPTH).value, expected)
    })
    record('yaml-test-suite', COMMIT, 'the same, written as YAML and read back', failures, withJson.length)
    expect(failures).toEqual([])
  })

  it('refuses every error case with ERR_INVALID_YAML', () => {
    const failures = errors.filter((id) => {
      const err = refusal(() => readYaml(text(id, 'in.yaml'), true, MAX_DEPTH))
      return !isAppError(err) || err.code !== 'ERR_INVALID_YAML'
    })
    record(
      'yaml-test-suite',
      COMMIT,
      'cases with `error`: refused (ERR_INVALID_YAML)',
      failures,
      errors.length,
    )
    expect(errors.length).toBe(86)
    expect(failures).toEqual([])
  })

  it('reads the valid cases that have no JSON form, or refuses them as having none', () => {
    // complex keys (a sequence as a key: 6BFJ) and keys twice (2JQS: two empty keys)
    const failures = others.filter((id) => {
      const err = refusal(() => readYaml(text(id, 'in.yaml'), true, MAX_DEPTH))
      return (
        err !== undefined &&
        !(isAppError(err) && ['ERR_UNREPRESENTABLE', 'ERR_DUPLICATE_KEY'].includes(err.code))
      )
    })
    record(
      'yaml-test-suite',
      COMMIT,
      'other valid cases: read, or refused as having no JSON form',
      failures,
      others.length,
    )
    expect(failures).toEqual([])
  })
})

describe('toml-test (TOML 1.0.0 files)', () => {
  const SUITE = join(ROOT, 'toml-test/tests')
  const COMMIT = 'd168c2a4'
  const files = readFileSync(join(SUITE, 'files-toml-1.0.0'), 'utf8').trim().split('\n')
  const valid = files.filter((f) => f.startsWith('valid/') && f.endsWith('.toml'))
  const invalid = files.filter((f) => f.startsWith('invalid/'))
  // what a raw body does: UTF-8 or refused, a leading BOM dropped (convertBytes)
  const decode = (f: string): string | undefined => {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(join(SUITE, f)))
    } catch {
      return undefined
    }
  }
  const expected = (f: string) =>
    fromTagged(JSON.parse(readFileSync(join(SUITE, f.replace(/\.toml$/, '.json')), 'utf8')))

  it('decodes every valid file to its tagged JSON (types, exact values, order-free tables)', () => {
    const failures = valid.filter((f) => {
      const text = decode(f)
      return text === undefined || !sameValue(readToml(text, MAX_DEPTH), expected(f), true)
    })
    record('toml-test', COMMIT, 'valid: decoded to the tagged JSON', failures, valid.length)
    expect(valid.length).toBe(210)
    expect(failures).toEqual([])
  })

  it('refuses every invalid file', () => {
    const failures = invalid.filter((f) => {
      const text = decode(f)
      if (text === undefined) return false
      const err = refusal(() => readToml(text, MAX_DEPTH))
      return !isAppError(err) || !['ERR_INVALID_TOML', 'ERR_DUPLICATE_KEY'].includes(err.code)
    })
    record(
      'toml-test',
      COMMIT,
      'invalid: refused (ERR_INVALID_TOML, ERR_DUPLICATE_KEY; bad UTF-8 by the body)',
      failures,
      invalid.length,
    )
    expect(invalid.length).toBe(499)
    expect(failures).toEqual([])
  })

  it("encodes every valid file's tagged JSON as TOML that decodes to it again", () => {
    const failures = valid.filter((f) => {
      const value = expected(f)
      return !sameValue(readToml(writeToml(value, MAX), MAX_DEPTH), value, true)
    })
    record(
      'toml-test',
      COMMIT,
      'encoder: each valid JSON written as TOML and read back',
      failures,
      valid.length,
    )
    expect(failures).toEqual([])
  })
})

// RFC 4180 section 2's examples (the rules 1–7, each with its example), read with the RFC's dialect.
describe('RFC 4180 examples', () => {
  const read = (text: string, header = false) =>
    readCsv(text, { delimiter: ',', quote: '"', header, infer: false })
  const examples: [string, string, DataValue][] = [
    [
      '1: records end with CRLF',
      'aaa,bbb,ccc\r\nzzz,yyy,xxx\r\n',
      [
        ['aaa', 'bbb', 'ccc'],
        ['zzz', 'yyy', 'xxx'],
      ],
    ],
    [
      '2: the last record may end without one',
      'aaa,bbb,ccc\r\nzzz,yyy,xxx',
      [
        ['aaa', 'bbb', 'ccc'],
        ['zzz', 'yyy', 'xxx'],
      ],
    ],
    [
      '3: a header line names the fields',
      'field_name,field_name2,field_name3\r\naaa,bbb,ccc\r\nzzz,yyy,xxx\r\n',
      [
        ['field_name', 'field_name2', 'field_name3'],
        ['aaa', 'bbb', 'ccc'],
        ['zzz', 'yyy', 'xxx'],
      ],
    ],
    ['4: fields separated by commas, spaces are part of a field', 'aaa, bbb ,ccc', [['aaa', ' bbb ', 'ccc']]],
    [
      '5: fields may be enclosed in double quotes',
      '"aaa","bbb","ccc"\r\nzzz,yyy,xxx',
      [
        ['aaa', 'bbb', 'ccc'],
        ['zzz', 'yyy', 'xxx'],
      ],
    ],
    [
      '6: quoted fields may hold line breaks, quotes and commas',
      '"aaa","b\r\nbb","ccc"\r\nzzz,yyy,xxx',
      [
        ['aaa', 'b\r\nbb', 'ccc'],
        ['zzz', 'yyy', 'xxx'],
      ],
    ],
    ['7: a double quote inside is doubled', '"aaa","b""bb","ccc"', [['aaa', 'b"bb', 'ccc']]],
  ]

  it('reads every example of section 2 as the RFC describes it', () => {
    const failures = examples.filter(([, text, expected]) => !sameValue(read(text), expected))
    record(
      'RFC 4180',
      'section 2',
      'examples of rules 1–7, read',
      failures.map(([name]) => name),
      examples.length,
    )
    expect(failures.map(([name]) => name)).toEqual([])
  })

  it('writes them back as the RFC writes them (CRLF, quotes only where needed)', () => {
    const failures = examples.filter(([, , expected]) => {
      const written = convertData(
        { input: JSON.stringify(expected), from: 'json', to: 'csv', options: { header: false } },
        defaultBounds(1000),
      ).output
      return !sameValue(read(written), expected)
    })
    record(
      'RFC 4180',
      'section 2',
      'the same, written as CSV and read back',
      failures.map(([name]) => name),
      examples.length,
    )
    expect(failures.map(([name]) => name)).toEqual([])
  })
})

const START = '<!-- data-convert conformance: generated by test/conformance/data-convert.test.ts -->'
const END = '<!-- end of data-convert conformance -->'

function table(): string {
  const rows = results.map(
    ({ suite, commit, what, passed, total }) => `| ${suite} | ${commit} | ${what} | ${passed} / ${total} |`,
  )
  return [START, '| suite | commit | cases | passed / total |', '|---|---|---|---|', ...rows, END].join('\n')
}

afterAll(() => {
  if (process.env.UPDATE_CONFORMANCE !== '1') return
  const doc = readFileSync(DOC, 'utf8')
  writeFileSync(DOC, doc.replace(new RegExp(`${START}[\\s\\S]*?${END}`), table()))
})

describe('docs/conformance.md', () => {
  it("holds this run's table of the data/convert suites (UPDATE_CONFORMANCE=1 rewrites it)", () => {
    if (process.env.UPDATE_CONFORMANCE === '1') return
    expect(results.length).toBe(9)
    expect(readFileSync(DOC, 'utf8')).toContain(table())
  })
})
