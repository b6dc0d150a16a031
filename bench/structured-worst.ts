import { performance } from 'node:perf_hooks'
import { parseJsonExact } from '../src/ops/json/number.ts'
import { queryJson } from '../src/ops/json/query/query.ts'
import { validateJson } from '../src/ops/json/validate/validate.ts'

// `node bench/structured-worst.ts`: the worst inputs found for json/validate and json/query (issue 39),
// each run once on this thread under the bounds below (a free plan's order of magnitude), with its time and
// its answer or refusal; docs/decisions.md ("JSON Schema and JSONPath: our own") quotes a run. Not in
// `npm run bench`: it times the op code alone, not the gateway.

const VB = { maxInstances: 10_000, maxErrors: 100, maxSteps: 1_000_000 }
const QB = { maxResults: 100_000, maxBytes: 10 * 2 ** 20, maxSteps: 1_000_000 }

function time(name: string, body: () => unknown): void {
  let out: string
  const started = performance.now()
  try {
    out = JSON.stringify(body()).slice(0, 80)
  } catch (e) {
    const err = e as { code?: string; message: string }
    out = `${err.code}: ${err.message.slice(0, 100)}`
  }
  process.stdout.write(`${(performance.now() - started).toFixed(1).padStart(8)} ms  ${name}  → ${out}\n`)
}

const nest = (levels: number, key: string): unknown => {
  let value: unknown = {}
  for (let i = 0; i < levels; i++) value = { [key]: value }
  return value
}
const arrays = (levels: number): unknown => {
  let value: unknown = 0
  for (let i = 0; i < levels; i++) value = [value]
  return value
}
const fanOut: Record<string, unknown> = { d40: { type: 'string' } }
for (let i = 0; i < 40; i++)
  fanOut[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] }
const members = Array.from({ length: 100_000 }, (_, i) => ({ k: i }))
const big = parseJsonExact(
  JSON.stringify({ a: Array.from({ length: 200_000 }, (_, i) => ({ i, s: `x${i}`, t: [i, i] })) }),
)

time('pattern ^(a+)+$ against 100k "a" and a "!"', () =>
  validateJson({ schema: { pattern: '^(a+)+$' }, instance: `${'a'.repeat(100_000)}!` }, VB),
)
time('pattern (.*a){20}$ against 100k "a" and a "b"', () =>
  validateJson({ schema: { pattern: '(.*a){20}$' }, instance: `${'a'.repeat(100_000)}b` }, VB),
)
time('lookahead pattern', () => validateJson({ schema: { pattern: '(?=a)' }, instance: 'a' }, VB))
time('pattern (a{1000}){1000}', () =>
  validateJson({ schema: { pattern: '(a{1000}){1000}' }, instance: 'a' }, VB),
)
time('{"$ref": "#"}', () => validateJson({ schema: { $ref: '#' }, instance: 1 }, VB))
time('$defs a -> b -> a', () =>
  validateJson(
    {
      schema: { $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } },
      instance: 1,
    },
    VB,
  ),
)
time('schema 512 levels deep', () => validateJson({ schema: nest(512, 'not'), instance: 1 }, VB))
time('schema 513 levels deep', () => validateJson({ schema: nest(513, 'not'), instance: 1 }, VB))
time('recursive items against 512-deep arrays', () =>
  validateJson({ schema: { items: { $ref: '#' } }, instance: arrays(512) }, VB),
)
time('recursive items against 513-deep arrays', () =>
  validateJson({ schema: { items: { $ref: '#' } }, instance: arrays(513) }, VB),
)
time('2^40 anyOf reference fan-out', () =>
  validateJson({ schema: { $ref: '#/$defs/d0', $defs: fanOut }, instance: 1 }, VB),
)
time('anyOf of 10k branches', () =>
  validateJson(
    { schema: { anyOf: Array.from({ length: 10_000 }, (_, i) => ({ const: i })) }, instance: -1 },
    VB,
  ),
)
time('enum of 100k objects, 1000 instances', () =>
  validateJson(
    { schema: { enum: members }, instances: Array.from({ length: 1000 }, (_, i) => ({ k: i * 100 })) },
    VB,
  ),
)
time('uniqueItems over 100k objects', () =>
  validateJson({ schema: { uniqueItems: true }, instance: members }, VB),
)
time('10k invalid instances, 100 output units kept', () =>
  validateJson({ schema: { type: 'string' }, instances: Array.from({ length: 10_000 }, () => 1) }, VB),
)
time('$dynamicRef recursion 500 deep', () =>
  validateJson(
    {
      schema: { $id: 'https://e/x', $dynamicAnchor: 'n', items: { $dynamicRef: '#n' } },
      instance: arrays(500),
    },
    VB,
  ),
)
time('query $..* over 200k items (1.2M nodes)', () => queryJson({ document: big, path: '$..*' }, QB))
time('query $..*..*', () => queryJson({ document: big, path: '$..*..*' }, QB))
time('query filter over 200k items', () => queryJson({ document: big, path: '$.a[?@.i > 199990].s' }, QB))
time('query count(@..*) per item', () => queryJson({ document: big, path: '$.a[?count(@..*) > 4]' }, QB))
time("query search(@, '(a+)+$') on a 100k string", () =>
  queryJson({ document: [`${'a'.repeat(100_000)}!`], path: "$[?search(@, '(a+)+$')]" }, QB),
)
time('query 64 nested parentheses', () =>
  queryJson({ document: [1], path: `$[?${'('.repeat(63)}@${')'.repeat(63)}]` }, QB),
)
time('query 65 nested parentheses', () =>
  queryJson({ document: [1], path: `$[?${'('.repeat(65)}@${')'.repeat(65)}]` }, QB),
)
time('query absolute subquery in a filter over 200k items', () =>
  queryJson({ document: big, path: '$.a[?@.i == $.a[5].i]' }, QB),
)
