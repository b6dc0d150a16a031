import { dispatch } from './dispatch.ts'
import { isolation } from './isolation.ts'
import { jsonDiffScenario } from './json-diff.ts'
import { jsonFormatScenario } from './json-format.ts'
import type { Scenario } from './lib/scenario.ts'
import { rateLimitStacks } from './rate-limit-stacks.ts'
import { smallHash } from './small-hash.ts'
import { smallHashRedis } from './small-hash-redis.ts'
import { streamScenario } from './stream.ts'

const SCENARIOS: Scenario[] = [
  smallHash,
  dispatch,
  isolation,
  smallHashRedis,
  rateLimitStacks,
  jsonDiffScenario,
  jsonFormatScenario,
  streamScenario,
]

// `npm run bench [-- name ...]`: runs the scenarios one after another (never in parallel: they share
// two cores) and prints each figure beside its baseline and the ratio.
const wanted = process.argv.slice(2)
for (const scenario of SCENARIOS.filter((s) => wanted.length === 0 || wanted.includes(s.name))) {
  process.stdout.write(`\n## ${scenario.title}\n`)
  const result = await scenario.run()
  for (const row of result.rows) {
    const p99 = row.p99_ms === undefined ? '' : `  p99 ${row.p99_ms.toFixed(2)} ms`
    process.stdout.write(`  ${row.label.padEnd(28)} ${row.value.toFixed(0).padStart(10)} ${row.unit}${p99}\n`)
  }
  const verdict = result.ratio >= scenario.target.ratio ? 'meets' : 'MISSES'
  process.stdout.write(`  ratio ${result.ratio.toFixed(3)}× — ${verdict} target (${scenario.target.text})\n`)
}
