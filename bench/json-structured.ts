import { readFileSync } from 'node:fs'
import { Agent } from 'node:https'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { JSONPathEnvironment } from 'json-p3'
import { post } from './json-diff.ts'
import { median } from './lib/load.ts'
import { startGateway } from './lib/processes.ts'
import { catalogue, QUERIES } from './lib/query-documents.ts'
import type { Scenario } from './lib/scenario.ts'
import { ORDER_SCHEMA, orderInstances } from './lib/validate-documents.ts'

// Issue 39's two targets, end to end through a gateway (TLS, a kept-alive connection, one request at a
// time, first byte sent to last byte read; the business plan, whose caps take 10k instances and a 10 MB
// document) against the same work in process:
// - POST /v1/json/validate with 10k orders (bench/lib/validate-documents.ts) ≥ 0.5× ajv 8 in process,
//   compile included, from the body's text (JSON.parse, compile, validate each; `multipleOfPrecision` set so
//   that ajv's answers are right);
// - POST /v1/json/query over a ~10 MB catalogue (bench/lib/query-documents.ts) ≥ 0.5× JSON.parse plus
//   json-p3 (values and normalized paths) in process, for each query of QUERIES.
// BENCH_VALIDATE_INSTANCES and BENCH_QUERY_PRODUCTS shrink them (a smoke run); BENCH_ROUNDS the repeats.

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const INSTANCES = Number(process.env.BENCH_VALIDATE_INSTANCES ?? 10_000)
// 34k products: about 10 MB of JSON
const PRODUCTS = Number(process.env.BENCH_QUERY_PRODUCTS ?? 34_000)
const TARGET = 0.5

function timed(run: () => unknown): number {
  const started = performance.now()
  run()
  return performance.now() - started
}

// Each body POSTed to path through a fresh gateway after one checked request, and its in-process
// counterpart (locals[i], none for a floor) run beside it: round after round, each body's gateway request
// and then its local run, so that the 2-core machine's drift falls on both alike (measured one phase after
// the other, ajv read 62-106 ms from run to run and the ratio 0.33-0.57×). Medians over the rounds.
async function throughGateway(
  path: string,
  bodies: string[],
  check: (data: unknown, i: number) => void,
  locals: ((() => unknown) | undefined)[] = [],
): Promise<{ gateway: number[]; local: number[] }> {
  const gateway = await startGateway({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' })
  const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
  const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'))
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  try {
    const send = async (body: string) => {
      const started = performance.now()
      const res = await post(`${gateway.url}${path}`, gateway.key, ca, body, agent)
      if (res.status !== 200)
        throw new Error(`POST ${path} answered ${res.status}: ${res.text.slice(0, 300)}`)
      return { ms: performance.now() - started, text: res.text }
    }
    for (const [i, body] of bodies.entries()) {
      locals[i]?.()
      check(JSON.parse((await send(body)).text).data, i)
    }
    const ms = bodies.map(() => [] as number[])
    const localMs = bodies.map(() => [] as number[])
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, body] of bodies.entries()) {
        ms[i]!.push((await send(body)).ms)
        const local = locals[i]
        if (local) localMs[i]!.push(timed(local))
      }
    }
    return {
      gateway: ms.map(median),
      local: localMs.map((l) => (l.length > 0 ? median(l) : Number.NaN)),
    }
  } finally {
    agent.destroy()
    await gateway.stop()
  }
}

export const jsonValidateScenario: Scenario = {
  name: 'json-validate',
  title: `JSON Schema: ${INSTANCES / 1000}k instances in one request end to end vs ajv in process (compile included)`,
  target: { ratio: TARGET, text: `the gateway ≥ ${TARGET}× ajv 8 in process, compile included` },
  async run() {
    const body = JSON.stringify({ schema: ORDER_SCHEMA, instances: orderInstances(INSTANCES) })
    let invalid = 0
    const runAjv = () => {
      const { schema, instances } = JSON.parse(body)
      const validate = new Ajv2020({
        allErrors: true,
        validateFormats: false,
        multipleOfPrecision: 9,
      }).compile(schema)
      invalid = instances.filter((i: unknown) => !validate(i)).length
    }
    runAjv()
    // the floor, in the same gateway: the same instances against the schema `true`, so the same bytes sent,
    // parsed exactly on the thread and answered with as many results, and no keyword checked
    const floorBody = JSON.stringify({ schema: true, instances: JSON.parse(body).instances })
    const measured = await throughGateway(
      '/v1/json/validate',
      [body, floorBody],
      (data, i) => {
        const results = (data as { results: { valid: boolean }[] }).results
        const ours = results.filter((r) => !r.valid).length
        if (ours !== (i === 0 ? invalid : 0))
          throw new Error(`the validators disagree: ${ours} invalid here, ${invalid} for ajv`)
      },
      [runAjv],
    )
    const [gateway, floor] = measured.gateway
    const ajv = measured.local[0]!
    const ratio = ajv / gateway!
    process.stdout.write(
      `  gateway: ${gateway!.toFixed(0)} ms end to end = ${ratio.toFixed(2)}× ajv (${ajv.toFixed(0)} ms) — ` +
        `${ratio >= TARGET ? 'meets' : 'MISSES'} target (≥ ${TARGET}×)\n` +
        `  floor (schema true, same instances): ${floor!.toFixed(0)} ms = ${(ajv / floor!).toFixed(2)}× ajv; ` +
        `validation's own share ${(gateway! - floor!).toFixed(0)} ms\n`,
    )
    return {
      rows: [
        { label: 'ajv 8 in process, compile included', value: ajv, unit: 'ms' },
        { label: 'gateway, end to end', value: gateway!, unit: 'ms' },
        { label: 'gateway floor, schema true', value: floor!, unit: 'ms' },
      ],
      ratio,
    }
  },
}

export const jsonQueryScenario: Scenario = {
  name: 'json-query',
  title: `JSONPath over a ${PRODUCTS / 1000}k-product catalogue end to end vs JSON.parse + json-p3 in process`,
  target: {
    ratio: TARGET,
    text: `the gateway ≥ ${TARGET}× JSON.parse + json-p3 in process, for every query`,
  },
  async run() {
    const document = catalogue(PRODUCTS)
    const text = JSON.stringify(document)
    const p3 = new JSONPathEnvironment()
    const counts: number[] = []
    const locals = QUERIES.map((path, i) => () => {
      const nodes = p3.query(path, JSON.parse(text))
      nodes.paths()
      counts[i] = nodes.values().length
    })
    for (const run of locals) run()
    // the floor, in the same gateway: the same document with a path that selects nothing (`$.none`), so the
    // same bytes sent and parsed exactly on the thread, and nothing evaluated or answered
    const paths = [...QUERIES, '$.none']
    const bodies = paths.map((path) => `{"document":${text},"path":${JSON.stringify(path)}}`)
    const measured = await throughGateway(
      '/v1/json/query',
      bodies,
      (data, i) => {
        const found = (data as { values: unknown[] }).values.length
        const expected = i < QUERIES.length ? counts[i] : 0
        if (found !== expected) throw new Error(`${paths[i]}: ${found} nodes here, ${expected} for json-p3`)
      },
      locals,
    )
    const gateway = measured.gateway
    const local = measured.local
    const floor = gateway[QUERIES.length]!
    process.stdout.write(`  floor ($.none, same document): ${floor.toFixed(0)} ms end to end\n`)
    const ratios = QUERIES.map((path, i) => {
      const ratio = local[i]! / gateway[i]!
      process.stdout.write(
        `  ${path}: ${gateway[i]!.toFixed(0)} ms end to end = ${ratio.toFixed(2)}× JSON.parse + json-p3 ` +
          `(${local[i]!.toFixed(0)} ms) — ${ratio >= TARGET ? 'meets' : 'MISSES'} target (≥ ${TARGET}×)\n`,
      )
      return ratio
    })
    return {
      rows: [
        ...QUERIES.flatMap((path, i) => [
          { label: `JSON.parse + json-p3, ${path}`, value: local[i]!, unit: 'ms' },
          { label: `gateway, ${path}`, value: gateway[i]!, unit: 'ms' },
        ]),
        { label: 'gateway floor, $.none', value: floor, unit: 'ms' },
      ],
      ratio: Math.min(...ratios),
    }
  },
}
