import { performance } from 'node:perf_hooks'
import { JSONPathEnvironment } from 'json-p3'
import { paths as rfcPaths, query as rfcQuery } from 'jsonpath-rfc9535'
import { parseJsonExact } from '../src/ops/json/number.ts'
import { queryJson } from '../src/ops/json/query/query.ts'
import { catalogue, QUERIES } from './lib/query-documents.ts'

// `node bench/query-candidates.ts [products]`: the JSONPath implementations docs/decisions.md ("JSON Schema
// and JSONPath: our own") chose between, in process, on the benchmark's ~10 MB catalogue
// (bench/lib/query-documents.ts, 40k products): parse the document's text (JSON.parse for the libraries,
// parseJsonExact for ours), run each query, give values and normalized paths. Best of 3 rounds after a
// warm-up. Not in `npm run bench`: it measures libraries, not the gateway.

const products = Number(process.argv[2] ?? 40_000)
const text = JSON.stringify(catalogue(products))
process.stdout.write(`document: ${(text.length / 2 ** 20).toFixed(1)} MiB\n`)

function best(name: string, run: (query: string) => number): void {
  for (const query of QUERIES) {
    run(query)
    const times: number[] = []
    const cpu: number[] = []
    let found = 0
    for (let i = 0; i < 3; i++) {
      const started = performance.now()
      const cpuStarted = process.cpuUsage()
      found = run(query)
      const used = process.cpuUsage(cpuStarted)
      times.push(performance.now() - started)
      cpu.push((used.user + used.system) / 1000)
    }
    process.stdout.write(
      `${name} ${query}: best ${Math.min(...times).toFixed(1)} ms wall, ${Math.min(...cpu).toFixed(1)} ms CPU (${found} nodes)\n`,
    )
  }
}

best('JSON.parse alone', () => (JSON.parse(text) ? 0 : 0))
best('JSON.parse + jsonpath-rfc9535 (values and paths)', (q) => {
  const doc = JSON.parse(text)
  const values = rfcQuery(doc, q)
  rfcPaths(doc, q)
  return values.length
})
const p3 = new JSONPathEnvironment()
best('JSON.parse + json-p3 (values and paths)', (q) => {
  const nodes = p3.query(q, JSON.parse(text))
  nodes.paths()
  return nodes.values().length
})
best('ours (parseJsonExact + query)', (q) => {
  const result = queryJson(
    { document: parseJsonExact(text), path: q },
    { maxResults: 1e7, maxBytes: 1e9, maxSteps: 1e8 },
  )
  return result.values.length
})
