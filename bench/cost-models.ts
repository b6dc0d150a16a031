import { performance } from 'node:perf_hooks'
import { INLINE_BUDGET_US, inlineBound, OPERATIONS, type OpName, type OpSpec } from '../src/ops/registry.ts'
import { worstCase } from './stall-inputs.ts'

// `node bench/cost-models.ts [op ...]`: times each op's worst-case input (bench/stall-inputs.ts) at its
// inline bound, on this thread, and prints the table of docs/dispatch.md#cost-models: µs per KiB
// measured, the bound it allows, and the bound and cost declared in src/ops/registry.ts. Not in the
// default bench list (`npm run bench`): it measures the op code alone, not the gateway.

const KiB = 1024
const ROUNDS = Number(process.env.BENCH_COST_ROUNDS ?? 15)
const BOUNDED_BYTES = 4 * KiB

let refused = ''

async function timeOnce(spec: OpSpec, input: unknown): Promise<number> {
  const started = performance.now()
  try {
    await spec.run(input)
  } catch (err) {
    // a refused worst case costs what it cost until refused; the table says so
    refused = (err as { code?: string }).code ?? String(err)
  }
  return performance.now() - started
}

// The best of ROUNDS after a warm-up: the op's own cost, not the noise of a shared machine.
async function measure(name: OpName): Promise<{ bytes: number; ms: number; usPerKiB: number }> {
  const spec = OPERATIONS[name] as OpSpec
  const bytes = Number.isFinite(spec.poolAbove) ? spec.poolAbove - 256 : BOUNDED_BYTES
  const input = worstCase(name, bytes)
  const body = Buffer.byteLength(JSON.stringify(input))
  for (let i = 0; i < 3; i++) await timeOnce(spec, input)
  let best = Number.POSITIVE_INFINITY
  for (let i = 0; i < ROUNDS; i++) best = Math.min(best, await timeOnce(spec, input))
  return { bytes: body, ms: best, usPerKiB: (best * 1000) / (body / KiB) }
}

const wanted = process.argv.slice(2) as OpName[]
const names = (Object.keys(OPERATIONS) as OpName[]).filter((n) => wanted.length === 0 || wanted.includes(n))
process.stdout.write(
  `| op | worst case | body | worst-case ms | µs/KiB measured | declared µs/KiB | inline bound (declared) | bound from measured |\n|---|---|---|---|---|---|---|---|\n`,
)
let over = 0
for (const name of names) {
  const spec = OPERATIONS[name] as OpSpec
  refused = ''
  const m = await measure(name)
  const input = worstCase(name, Number.isFinite(spec.poolAbove) ? spec.poolAbove - 256 : BOUNDED_BYTES)
  const pool = spec.heavy?.(input) ? ' (heavy: pool)' : ''
  const note = `${refused ? ` (refused: ${refused})` : ''}${pool}`
  const declared = spec.cost
  const fromMeasured = declared ? inlineBound({ worst: '', usPerKiB: m.usPerKiB }) / KiB : '-'
  const bound = Number.isFinite(spec.poolAbove) ? `${spec.poolAbove / KiB} KiB` : 'always inline'
  if (m.ms * 1000 > INLINE_BUDGET_US && !pool) over++
  process.stdout.write(
    `| ${name} | ${declared?.worst ?? 'bounded by its schema'}${note} | ${(m.bytes / KiB).toFixed(1)} KiB | ${m.ms.toFixed(3)} | ${m.usPerKiB.toFixed(1)} | ${declared?.usPerKiB ?? '-'} | ${bound} | ${fromMeasured === '-' ? '-' : `${fromMeasured} KiB`} |\n`,
  )
}
process.stdout.write(`\n${over} op(s) over the ${INLINE_BUDGET_US} µs inline budget at their bound.\n`)
