import { compression } from './compression.ts'
import { dataConvertScenario } from './data-convert.ts'
import { diffMemoryScenario } from './diff-memory.ts'
import { dispatch } from './dispatch.ts'
import { firstRequest } from './first-request.ts'
import { instructions } from './instructions.ts'
import { isolation, isolationStream } from './isolation.ts'
import { jsonDiffLargeScenario, jsonDiffScenario } from './json-diff.ts'
import { jsonFormatInputScenario, jsonFormatScenario } from './json-format.ts'
import { jsonQueryScenario, jsonValidateScenario } from './json-structured.ts'
import { runInfo, writeReport } from './lib/report.ts'
import type { Scenario } from './lib/scenario.ts'
import { type ScenarioOutcome, verdict } from './lib/verdict.ts'
import { memoryScenario } from './memory.ts'
import { passwordArgon2, passwordBcrypt, passwordIsolation } from './password.ts'
import { rateLimitStacks } from './rate-limit-stacks.ts'
import { redisDecision } from './redis-decision.ts'
import { smallHash } from './small-hash.ts'
import { smallHashRedis } from './small-hash-redis.ts'
import { stall } from './stall.ts'
import { streamScenario } from './stream.ts'
import { toolboxCompress } from './toolbox-compress.ts'
import { tracingCost } from './tracing.ts'

const SCENARIOS: Scenario[] = [
  smallHash,
  instructions,
  dispatch,
  isolation,
  isolationStream,
  smallHashRedis,
  redisDecision,
  rateLimitStacks,
  jsonDiffScenario,
  jsonDiffLargeScenario,
  firstRequest,
  jsonFormatScenario,
  jsonFormatInputScenario,
  jsonValidateScenario,
  jsonQueryScenario,
  dataConvertScenario,
  streamScenario,
  compression,
  toolboxCompress,
  tracingCost,
  diffMemoryScenario,
  memoryScenario,
  passwordArgon2,
  passwordBcrypt,
  passwordIsolation,
  stall,
]

// `npm run bench [-- name ...]`: runs the scenarios one after another (never in parallel: they share
// two cores), prints each figure beside its baseline and the ratio, and writes bench/results/report.md
// with a chart of the ratios (ratios.svg) and the raw figures (results.json). A scenario that throws is
// reported as not run and the others still run; the exit status then says so.
const wanted = process.argv.slice(2)
const unknown = wanted.filter((name) => !SCENARIOS.some((s) => s.name === name))
if (unknown.length > 0) {
  process.stderr.write(
    `unknown scenario: ${unknown.join(', ')} (have: ${SCENARIOS.map((s) => s.name).join(', ')})\n`,
  )
  process.exit(2)
}
function print(o: ScenarioOutcome): void {
  if (!o.result) {
    process.stdout.write(`  did not run: ${o.error}\n`)
    return
  }
  for (const row of o.result.rows) {
    const p99 = row.p99_ms === undefined ? '' : `  p99 ${row.p99_ms.toFixed(2)} ms`
    process.stdout.write(
      `  ${row.label.padEnd(28)} ${row.value.toFixed(row.value < 10 ? 2 : 0).padStart(10)} ${row.unit}${p99}\n`,
    )
  }
  const outcome = verdict(o).replaceAll('*', '')
  process.stdout.write(`  ratio ${o.result.ratio.toFixed(3)}× — ${outcome} (target: ${o.target.text})\n`)
}

const startedAt = new Date()
const outcomes: ScenarioOutcome[] = []
for (const scenario of SCENARIOS.filter((s) => wanted.length === 0 || wanted.includes(s.name))) {
  const outcome: ScenarioOutcome = { name: scenario.name, title: scenario.title, target: scenario.target }
  process.stdout.write(`\n## ${scenario.title}\n`)
  try {
    outcome.result = await scenario.run()
  } catch (err) {
    outcome.error = err instanceof Error ? err.message.split('\n')[0]! : String(err)
  }
  outcomes.push(outcome)
  print(outcome)
}
const dir = new URL('results/', import.meta.url).pathname
await writeReport(dir, outcomes, runInfo(startedAt, wanted.length > 0))
process.stdout.write(`\nReport: ${dir}report.md (chart: ratios.svg, raw figures: results.json)\n`)
if (outcomes.some((o) => o.error)) process.exitCode = 1
