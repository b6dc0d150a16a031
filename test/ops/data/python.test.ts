import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { convertData, defaultBounds, MAX_DEPTH } from '../../../src/ops/data/convert.ts'
import { readJson } from '../../../src/ops/data/json/read.ts'
import { DataNumber, type DataValue } from '../../../src/ops/data/model/value.ts'
import type { DataFormat } from '../../../src/ops/data/types.ts'
import { readYaml } from '../../../src/ops/data/yaml/read.ts'

// data/convert against an independent implementation: Python's PyYAML (YAML 1.1), tomllib (TOML 1.0, 3.11's
// standard library) and csv, on generated documents, both ways where Python writes the format too. What
// PyYAML's YAML 1.1 reads differently from YAML 1.2, and so is not generated:
// for PyYAML's output read by us, strings that begin like a number (YAML 1.1 writes 0o17 and 1e5 plain,
// as strings, where YAML 1.2's core schema reads 15 and 100000.0). Everything our YAML writer writes is
// meant to read the same in both (write.ts: compat yaml-1.1, and tabs, "=" and "<<" quoted).

const PYTHON = '/usr/bin/python3'
const SCRIPT = `
import csv, io, json, sys, tomllib, yaml
for line in sys.stdin:
    req = json.loads(line)
    try:
        op = req["op"]
        if op == "yaml_load": out = yaml.safe_load(req["text"])
        elif op == "toml_load": out = tomllib.loads(req["text"])
        elif op == "csv_read": out = list(csv.DictReader(io.StringIO(req["text"], newline="")))
        elif op == "yaml_dump": out = yaml.safe_dump(json.loads(req["json"]), allow_unicode=True, sort_keys=False)
        elif op == "csv_write":
            rows = json.loads(req["json"]); buf = io.StringIO(newline="")
            w = csv.writer(buf, lineterminator="\\r\\n"); w.writerows(rows); out = buf.getvalue()
        print(json.dumps({"ok": True}))
        print(json.dumps(out, ensure_ascii=False))
    except Exception as e:
        print(json.dumps({"ok": False, "error": type(e).__name__ + ": " + str(e)[:200]}))
        print("null")
`

type Request = { op: string; text?: string; json?: string }
// `out` is Python's json.dumps of what it read or wrote, as text: its integers are exact
type Answer = { ok: true; out: string } | { ok: false; error: string }

function python(requests: Request[]): Answer[] {
  const run = spawnSync(PYTHON, ['-c', SCRIPT], {
    input: requests.map((r) => JSON.stringify(r)).join('\n'),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  })
  if (run.status !== 0) throw new Error(run.stderr)
  const lines = run.stdout.trim().split('\n')
  const answers: Answer[] = []
  for (let i = 0; i < lines.length; i += 2) {
    const status = JSON.parse(lines[i]!) as { ok: boolean; error?: string }
    answers.push(status.ok ? { ok: true, out: lines[i + 1]! } : { ok: false, error: status.error! })
  }
  return answers
}

// What Python wrote (a YAML or CSV text), from its answer.
function written(answer: Answer): string {
  if (!answer.ok) throw new Error(answer.error)
  return JSON.parse(answer.out) as string
}

// Python's answer, a JSON value, as the value model (numbers exact: Python's ints are arbitrary).
function model(answer: Answer): DataValue {
  if (!answer.ok) throw new Error(answer.error)
  return readJson(answer.out, MAX_DEPTH)
}

// Ordered equality of the models; numbers by value (a double's shortest text either way, or exact digits).
function same(a: DataValue, b: DataValue): boolean {
  if (
    (typeof a === 'number' || a instanceof DataNumber) &&
    (typeof b === 'number' || b instanceof DataNumber)
  ) {
    const text = (v: number | DataNumber) => (typeof v === 'number' ? String(v) : v.text)
    return (
      Number(text(a)) === Number(text(b)) && (!/^-?\d+$/.test(text(a)) || BigInt(text(a)) === BigInt(text(b)))
    )
  }
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]!))
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false
    const ka = [...a.keys()]
    const kb = [...b.keys()]
    return ka.every((k, i) => k === kb[i] && same(a.get(k)!, b.get(k)!))
  }
  return a === b
}

const TRICKY = [
  'no',
  'yes',
  'on',
  'off',
  'y',
  'n',
  '1_000',
  '0o17',
  '0x1F',
  '1e5',
  '2001-12-14',
  '12:30:00',
  '~',
  'null',
  'true',
  'False',
  '',
  ' lead',
  'trail ',
  'a: b',
  '- x',
  '#c',
  'a #b',
  'multi\nline',
  'multi\nline\n',
  ' two\n lines',
  'tab\tx',
  'quote"s',
  "apos'",
  'ünïcödé',
  '日本語',
  '\u0007bell',
  '.inf',
  '.5',
  '+1',
  '-0',
  '[x]',
  '{y}',
  '&a',
  '*b',
  '!t',
  '%d',
  '@e',
  '`f',
  '|g',
  '>h',
  '?i',
  ',j',
]

const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...TRICKY))
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })
const scalar = (bigInts: fc.Arbitrary<bigint>) =>
  fc.oneof(
    text,
    fc.boolean(),
    fc.constant(null),
    bigInts.map((n) => ({ int: n.toString() })),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => ({ float: d })),
  )

type Gen = string | boolean | null | { int: string } | { float: number } | Gen[] | { map: [string, Gen][] }

function document(
  leaf: fc.Arbitrary<Gen>,
  keys: fc.Arbitrary<string>,
): fc.Arbitrary<{ map: [string, Gen][] }> {
  const { node } = fc.letrec<{ node: Gen }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('node'), { maxLength: 4 }),
      fc
        .uniqueArray(fc.tuple(keys, tie('node')), { maxLength: 4, selector: ([k]) => k })
        .map((map) => ({ map })),
    ),
  }))
  return fc.uniqueArray(fc.tuple(keys, node), { maxLength: 6, selector: ([k]) => k }).map((map) => ({ map }))
}

// JSON text of a generated document: numbers exact (big integers as digits, doubles as JS writes them).
function jsonOf(value: Gen): string {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(jsonOf).join(',')}]`
  if ('int' in value) return value.int
  if ('float' in value) {
    // a float's text, as JSON may write it and as a float (1.0, not 1)
    const digits = Object.is(value.float, -0) ? '-0.0' : String(value.float)
    return /[.e]/.test(digits) ? digits : `${digits}.0`
  }
  return `{${value.map.map(([k, v]) => `${JSON.stringify(k)}:${jsonOf(v)}`).join(',')}}`
}

function convert(input: string, from: DataFormat, to: DataFormat, options?: object): string {
  return convertData({ input, from, to, ...(options ? { options } : {}) }, defaultBounds(input.length)).output
}

const available = existsSync(PYTHON)
const RUNS = 150
const sample = <T>(arb: fc.Arbitrary<T>, seed: number) => fc.sample(arb, { numRuns: RUNS, seed })

describe.skipIf(!available && process.env.CI !== 'true')(
  'data/convert against Python (PyYAML, tomllib, csv)',
  () => {
    it('our YAML reads the same in PyYAML', () => {
      const keys = text.filter((k) => k !== '<<')
      const leaf = scalar(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n })).filter((v) => v !== '=')
      const docs = sample(document(leaf, keys), 39)
      const ours = docs.map((d) => convert(jsonOf(d), 'json', 'yaml'))
      const answers = python(ours.map((text) => ({ op: 'yaml_load', text })))
      const wrong = docs.filter((d, i) => !same(model(answers[i]!), readJson(jsonOf(d), MAX_DEPTH)))
      expect(wrong.map((d) => ours[docs.indexOf(d)])).toEqual([])
    })

    it("PyYAML's YAML reads the same in ours", () => {
      const plain = text.filter((s) => !/^[-+.0-9]/.test(s))
      const docs = sample(
        document(
          scalar(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n })).filter(
            (v) => typeof v !== 'string' || !/^[-+.0-9]/.test(v),
          ),
          plain,
        ),
        40,
      )
      const answers = python(docs.map((d) => ({ op: 'yaml_dump', json: jsonOf(d) })))
      const wrong = docs.filter((d, i) => {
        return !same(readYaml(written(answers[i]!), false, MAX_DEPTH).value, readJson(jsonOf(d), MAX_DEPTH))
      })
      expect(wrong.map(jsonOf)).toEqual([])
    })

    it('our TOML reads the same in tomllib (and in ours)', () => {
      const leaf = scalar(int64).filter((v) => v !== null)
      const docs = sample(document(leaf, text), 41)
      const ours = docs.map((d) => convert(jsonOf(d), 'json', 'toml'))
      const answers = python(ours.map((text) => ({ op: 'toml_load', text })))
      const wrong = docs.filter((d, i) => {
        const expected = readJson(jsonOf(d), MAX_DEPTH)
        return (
          !same(model(answers[i]!), expected) ||
          !same(readJson(convert(ours[i]!, 'toml', 'json'), MAX_DEPTH), expected)
        )
      })
      expect(wrong.map((d) => ours[docs.indexOf(d)])).toEqual([])
    })

    it("our CSV reads the same in Python's csv, and Python's in ours", () => {
      // two columns at least: a record of one empty field is an empty line, which RFC 4180 reads as a record
      // and Python's csv skips
      const names = fc.uniqueArray(text, { minLength: 2, maxLength: 5 })
      const cell = fc.oneof(
        text,
        fc.constant(null),
        int64.map((n) => ({ int: n.toString() })),
      )
      const tables = sample(
        names.chain((header) =>
          fc
            .array(fc.array(cell, { minLength: header.length, maxLength: header.length }), { maxLength: 5 })
            .map((rows) => ({ header, rows: rows as Gen[][] })),
        ),
        42,
      )
      const cellText = (v: Gen) => (v === null ? '' : typeof v === 'string' ? v : (v as { int: string }).int)
      const ours = tables.map(({ header, rows }) =>
        convert(
          `[${rows.map((row) => `{${header.map((h, c) => `${JSON.stringify(h)}:${jsonOf(row[c] as Gen)}`).join(',')}}`).join(',')}]`,
          'json',
          'csv',
        ),
      )
      const read = python(ours.map((text) => ({ op: 'csv_read', text })))
      const theirs = python(
        tables.map(({ header, rows }) => ({
          op: 'csv_write',
          json: JSON.stringify([header, ...rows.map((r) => r.map((v) => cellText(v as Gen)))]),
        })),
      )
      const wrong = tables.filter(({ header, rows }, i) => {
        const strings: DataValue = rows.map(
          (row) => new Map(header.map((h, c) => [h, cellText(row[c] as Gen)])),
        )
        const pythonRead = model(read[i]!)
        // an empty table writes nothing, which has no header for DictReader either
        const oursRead = readJson(convert(written(theirs[i]!), 'csv', 'json'), MAX_DEPTH)
        return (rows.length > 0 && !same(pythonRead, strings)) || !same(oursRead, strings)
      })
      expect(wrong).toEqual([])
    })
  },
)
