import { performance } from 'node:perf_hooks'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { parseJsonExact } from '../src/ops/json/number.ts'
import { validateJson } from '../src/ops/json/validate/validate.ts'
import { ORDER_SCHEMA, orderInstances } from './lib/validate-documents.ts'

// `node bench/validate-candidates.ts [count]`: the JSON Schema validators docs/decisions.md ("JSON Schema
// and JSONPath: our own") chose between, in process, on the benchmark's realistic schema and instances
// (bench/lib/validate-documents.ts): compile once, validate `count` instances (10k), from the body's text
// (each candidate parses it as it would: JSON.parse for ajv and hyperjump, parseJsonExact for ours). Best
// of 3 rounds after a warm-up. Not in `npm run bench`: it measures libraries, not the gateway.

const count = Number(process.argv[2] ?? 10_000)
const body = JSON.stringify({ schema: ORDER_SCHEMA, instances: orderInstances(count) })
const ROUNDS = 3

async function best(name: string, run: () => Promise<number> | number): Promise<void> {
  await run()
  const times: number[] = []
  const cpu: number[] = []
  let invalid = 0
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now()
    const cpuStarted = process.cpuUsage()
    invalid = await run()
    const used = process.cpuUsage(cpuStarted)
    times.push(performance.now() - started)
    cpu.push((used.user + used.system) / 1000)
  }
  const list = (xs: number[]) => xs.map((t) => t.toFixed(1)).join(', ')
  process.stdout.write(
    `${name}: best ${Math.min(...times).toFixed(1)} ms wall (${list(times)}), ` +
      `${Math.min(...cpu).toFixed(1)} ms CPU (${list(cpu)}); ${invalid} invalid\n`,
  )
}

await best('ajv 8 (2020-12, compile included)', () => {
  const { schema, instances } = JSON.parse(body)
  const validate = new Ajv2020({ allErrors: true, validateFormats: false, multipleOfPrecision: 9 }).compile(
    schema,
  )
  return instances.filter((i: unknown) => !validate(i)).length
})

await best('ours (parseJsonExact, compile included)', () => {
  const input = parseJsonExact(body) as { schema: unknown; instances: unknown[] }
  const result = validateJson(input, { maxInstances: 1e6, maxErrors: 1000, maxSteps: 1e9 }) as {
    results: { valid: boolean }[]
  }
  return result.results.filter((r) => !r.valid).length
})

if (count <= 2000) {
  const { registerSchema, unregisterSchema, validate } = await import('@hyperjump/json-schema/draft-2020-12')
  await best('@hyperjump/json-schema (compile included)', async () => {
    const { schema, instances } = JSON.parse(body)
    registerSchema(schema)
    const check = await validate(schema.$id)
    const invalid = instances.filter((i: unknown) => !check(i as never).valid).length
    unregisterSchema(schema.$id)
    return invalid
  })
}
