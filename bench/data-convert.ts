import { readFileSync } from 'node:fs'
import { Agent } from 'node:https'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parse } from 'yaml'
import { collector } from '../src/lib/gc.ts'
import { median } from './lib/load.ts'
import { postTimed } from './lib/post-timed.ts'
import { startGateway } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'

const MiB = 1024 * 1024
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const SIZE = Number(process.env.BENCH_DATA_CONVERT_BYTES ?? 5 * MiB)
// issue 39: YAML → JSON end to end ≥ 0.6× in-process `yaml` parse plus JSON.stringify
const TARGET = 0.6

// A stream of Kubernetes-like manifests as one YAML sequence: maps, flow maps, lists, strings, integers,
// decimals, booleans, as configuration is written.
export function yamlDocument(bytes: number): string {
  const item = (i: number) =>
    `- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: svc-${i}\n    labels: {app: svc-${i}, tier: backend}\n` +
    `  spec:\n    replicas: ${i % 7}\n    ratio: ${i}.25\n    enabled: ${i % 2 === 0}\n` +
    `    image: "registry.example.com/svc:${i}.0.1"\n    ports:\n      - containerPort: 8080\n        protocol: TCP\n` +
    '    env:\n      - name: LOG_LEVEL\n        value: info\n'
  let text = ''
  for (let i = 0; text.length < bytes; i++) text += item(i)
  return text
}

function timed(fn: () => unknown): number {
  const started = performance.now()
  fn()
  return performance.now() - started
}

// YAML → JSON of a SIZE document: POST /v1/data/convert?from=yaml&to=json through the gateway (business plan,
// TLS, HTTP/1.1) as a raw body answered raw, one request at a time, against `yaml`'s parse plus
// JSON.stringify in process (which rounds 20-digit integers and writes 1.0 as 1; we do not). The first
// answer is checked against the baseline's JSON, not timed.
async function measure() {
  const text = yamlDocument(SIZE)
  const body = Buffer.from(text, 'utf8')
  const expected = JSON.stringify(parse(text), null, 2)
  const gateway = await startGateway({
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    PLANS: JSON.stringify({ business: { data_max_input_bytes: Math.max(64 * MiB, 2 * body.length) } }),
  })
  const ca = readFileSync(join(/data dir:\s+(\S+)/.exec(gateway.output())![1]!, 'tls', 'cert.pem'))
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  try {
    const send = () =>
      postTimed(`${gateway.url}/v1/data/convert?from=yaml&to=json`, {
        ca,
        agent,
        headers: {
          authorization: `Bearer ${gateway.key}`,
          'content-type': 'application/octet-stream',
          accept: 'application/octet-stream',
        },
        body,
      })
    const first = await send()
    // the document holds no number whose text a double changes, so both JSON texts are the same
    if (first.status !== 200 || first.body.toString() !== expected) {
      throw new Error(`data/convert answered ${first.status}: ${first.body.subarray(0, 300).toString()}`)
    }
    const baseline: number[] = []
    const ours: number[] = []
    const gc = collector()
    for (let i = 0; i < ROUNDS; i++) {
      baseline.push(timed(() => JSON.stringify(parse(text), null, 2)))
      gc({ type: 'major' })
      ours.push((await send()).ms)
    }
    return { bytes: body.length, baseline: median(baseline), ours: median(ours) }
  } finally {
    agent.destroy()
    await gateway.stop()
  }
}

export const dataConvertScenario: Scenario = {
  name: 'data-convert',
  title: `Data convert: YAML → JSON of a ${(SIZE / MiB).toFixed(0)} MiB raw body, gateway vs in-process yaml parse + JSON.stringify`,
  target: {
    ratio: TARGET,
    text: `gateway (octet-stream) ≥ ${TARGET}× in-process yaml.parse + JSON.stringify`,
  },
  async run() {
    const m = await measure()
    const ratio = m.baseline / m.ours
    process.stdout.write(
      `  document ${(m.bytes / MiB).toFixed(1)} MiB: gateway ${m.ours.toFixed(0)} ms = ${ratio.toFixed(3)}× the baseline ` +
        `(${m.baseline.toFixed(0)} ms) — ${ratio >= TARGET ? 'meets' : 'MISSES'} target (≥ ${TARGET}×)\n`,
    )
    return {
      rows: [
        { label: 'yaml.parse+JSON.stringify', value: m.baseline, unit: 'ms' },
        { label: 'gateway, octet-stream', value: m.ours, unit: 'ms' },
      ],
      ratio,
    }
  },
}
