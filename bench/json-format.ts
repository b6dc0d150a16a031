import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:https'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { formatJsonBytes } from '../src/ops/json/format/format.ts'
import { median } from './lib/load.ts'
import { startGateway } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'

const MiB = 1024 * 1024
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const SIZE = Number(process.env.BENCH_JSON_FORMAT_BYTES ?? 15 * MiB)

// An API dump: records with ids, short and long strings (some non-ASCII, some escapes), integers,
// decimals, booleans, nulls, nested objects and arrays, pretty-printed with two spaces as people send it.
export function jsonDocument(bytes: number): string {
  let state = 42
  const random = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648
    return Math.floor((state / 2147483648) * n)
  }
  const words = [
    'alpha',
    'bravo',
    'delta',
    'échelon',
    'gamma',
    'kilo',
    'tango',
    'zulu',
    'quote "q"',
    'tab\tline',
  ]
  const phrase = (n: number) => Array.from({ length: n }, () => words[random(words.length)]).join(' ')
  const items: unknown[] = []
  let size = 60
  while (size < bytes) {
    const id = items.length
    const item = {
      id,
      uuid: `${random(1e9).toString(16)}-${random(1e9).toString(16)}-${random(1e9).toString(16)}`,
      name: phrase(2),
      email: `user${id}@example.com`,
      active: random(2) === 1,
      score: random(1e6) / 100,
      balance: id % 7 === 0 ? null : random(1e9) - 5e8,
      tags: Array.from({ length: random(5) }, () => words[random(words.length)]),
      address: { street: `${random(999)} Main Street`, city: phrase(1), zip: String(10000 + random(89999)) },
      location: [random(180_000_000) / 1e6 - 90, random(360_000_000) / 1e6 - 180],
      description: phrase(10),
    }
    size += JSON.stringify(item, null, 2).length + 6 + 4 * 20
    items.push(item)
  }
  return JSON.stringify({ generated_at: '2026-01-01T00:00:00Z', count: items.length, items }, null, 2)
}

function timed(fn: () => unknown): number {
  const started = performance.now()
  fn()
  return performance.now() - started
}

interface Posted {
  status: number
  body: Buffer
  ms: number
}

function post(
  url: string,
  ca: Buffer,
  agent: Agent,
  headers: Record<string, string>,
  body: Buffer,
): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const req = request(url, { method: 'POST', ca, agent, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks),
          ms: performance.now() - started,
        }),
      )
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

// Minify of a ~15 MiB document: POST /v1/json/format through the gateway (business plan, TLS, HTTP/1.1)
// as a raw octet-stream answered raw, and as {input} answered as JSON, against JSON.parse + JSON.stringify
// of the same text in process (which loses number spellings, escapes and duplicate keys; we do not). One
// request at a time (a latency figure); rounds alternate the three so that drift in the machine's load
// hits all of them; the first of each kind is checked and not timed.
export const jsonFormatScenario: Scenario = {
  name: 'json-format',
  title: `JSON format: minify of a ${(SIZE / MiB).toFixed(0)} MiB document, gateway vs in-process JSON.parse + JSON.stringify`,
  target: { ratio: 0.5, text: 'gateway (octet-stream) ≥ 0.5× in-process JSON.parse + JSON.stringify' },
  async run() {
    const text = jsonDocument(SIZE)
    const bytes = Buffer.from(text, 'utf8')
    const expected = Buffer.from(JSON.stringify(JSON.parse(text)), 'utf8')
    const jsonBody = Buffer.from(JSON.stringify({ input: text, mode: 'minify' }), 'utf8')
    const gateway = await startGateway({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' })
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
      const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'))
      const auth = { authorization: `Bearer ${gateway.key}` }
      const raw = () =>
        post(
          `${gateway.url}/v1/json/format?mode=minify`,
          ca,
          agent,
          { ...auth, 'content-type': 'application/octet-stream', accept: 'application/octet-stream' },
          bytes,
        )
      const json = () =>
        post(
          `${gateway.url}/v1/json/format`,
          ca,
          agent,
          { ...auth, 'content-type': 'application/json' },
          jsonBody,
        )
      const rawFirst = await raw()
      if (rawFirst.status !== 200 || !rawFirst.body.equals(expected)) {
        throw new Error(
          `raw minify answered ${rawFirst.status}: ${rawFirst.body.subarray(0, 300).toString()}`,
        )
      }
      const jsonFirst = await json()
      const output = jsonFirst.status === 200 ? JSON.parse(jsonFirst.body.toString()).data.output : undefined
      if (output !== expected.toString()) {
        throw new Error(
          `JSON minify answered ${jsonFirst.status}: ${jsonFirst.body.subarray(0, 300).toString()}`,
        )
      }
      timed(() => JSON.stringify(JSON.parse(text)))
      const runs = {
        baseline: [] as number[],
        ours: [] as number[],
        raw: [] as number[],
        json: [] as number[],
      }
      for (let i = 0; i < ROUNDS; i++) {
        runs.baseline.push(timed(() => JSON.stringify(JSON.parse(text))))
        runs.ours.push(timed(() => formatJsonBytes({ input: bytes, mode: 'minify' })))
        runs.raw.push((await raw()).ms)
        runs.json.push((await json()).ms)
      }
      const baseline = median(runs.baseline)
      const rawMs = median(runs.raw)
      const jsonMs = median(runs.json)
      process.stdout.write(
        `  document ${(bytes.length / MiB).toFixed(1)} MiB pretty → ${(expected.length / MiB).toFixed(1)} MiB; ` +
          `{input} form ${(baseline / jsonMs).toFixed(3)}× the baseline (${(jsonBody.length / MiB).toFixed(1)} MiB body)\n`,
      )
      return {
        rows: [
          { label: 'JSON.parse+stringify', value: baseline, unit: 'ms' },
          { label: 'ours in process (bytes)', value: median(runs.ours), unit: 'ms' },
          { label: 'gateway, octet-stream', value: rawMs, unit: 'ms' },
          { label: 'gateway, {input} JSON', value: jsonMs, unit: 'ms' },
        ],
        ratio: baseline / rawMs,
      }
    } finally {
      agent.destroy()
      await gateway.stop()
    }
  },
}
