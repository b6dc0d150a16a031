import { performance } from 'node:perf_hooks'
import { heavyInput, INLINE_BUDGET_US, inlineBound, inlineUpTo } from '../src/exec/costs.ts'
import { CATALOG } from '../src/ops/catalog.ts'
import type { AnyOp } from '../src/ops/define.ts'
import { worstRequest } from './stall-inputs.ts'

// `node bench/cost-models.ts [op ...]`: times each op's worst-case body (OpDescriptor.worst) at its inline
// bound, on this thread, as an inline request costs the event loop: JSON.parse of the body, its schema, the
// op, and the JSON text of its answer; and prints the table of docs/dispatch.md#cost-models: µs per KiB
// measured, the bound it allows, and the cost declared in the op's descriptor (OpDescriptor.cost) with the
// bound src/exec/costs.ts derives from it. Not in the default bench list (`npm run bench`): it measures the
// op code alone, not the gateway.

const KiB = 1024
const ROUNDS = Number(process.env.BENCH_COST_ROUNDS ?? 15)
let refused = ''

async function timeOnce(op: AnyOp, body: string, path: Record<string, unknown>): Promise<number> {
  const started = performance.now()
  try {
    const input = op.body.parse(JSON.parse(body))
    JSON.stringify(await op.run({ ...input, ...path }, { caps: {}, tenant: '' }))
  } catch (err) {
    // a refused worst case costs what it cost until refused; the table says so
    refused = (err as { code?: string }).code ?? (err as Error).name
  }
  return performance.now() - started
}

// The best of ROUNDS after a warm-up: the op's own cost, not the noise of a shared machine.
async function measure(op: AnyOp): Promise<{ bytes: number; ms: number; usPerKiB: number }> {
  const worst = worstRequest(op, inlineUpTo(op) - 256)
  const text = JSON.stringify(worst.body)
  const body = Buffer.byteLength(text)
  for (let i = 0; i < 3; i++) await timeOnce(op, text, worst.fromPath)
  let best = Number.POSITIVE_INFINITY
  for (let i = 0; i < ROUNDS; i++) best = Math.min(best, await timeOnce(op, text, worst.fromPath))
  return { bytes: body, ms: best, usPerKiB: (best * 1000) / (body / KiB) }
}

const wanted = process.argv.slice(2)
const ops = CATALOG.ops.filter((op) => wanted.length === 0 || wanted.includes(op.name))
process.stdout.write(
  `| op | worst case | body | worst-case ms | µs/KiB measured | declared µs/KiB | inline bound (declared) | bound from measured |\n|---|---|---|---|---|---|---|---|\n`,
)
let over = 0
for (const op of ops) {
  refused = ''
  const m = await measure(op)
  const worst = worstRequest(op, inlineUpTo(op) - 256)
  const pool = heavyInput(op, { ...worst.body, ...worst.fromPath }) ? ' (heavy: pool)' : ''
  const note = `${refused ? ` (refused: ${refused})` : ''}${pool}`
  const fromMeasured = inlineBound({ usPerKiB: m.usPerKiB }) / KiB
  if (m.ms * 1000 > INLINE_BUDGET_US && !pool) over++
  process.stdout.write(
    `| ${op.name} | ${op.cost.worst}${note} | ${(m.bytes / KiB).toFixed(1)} KiB | ${m.ms.toFixed(3)} | ${m.usPerKiB.toFixed(1)} | ${op.cost.usPerKiB} | ${inlineUpTo(op) / KiB} KiB | ${fromMeasured} KiB |\n`,
  )
}
process.stdout.write(`\n${over} op(s) over the ${INLINE_BUDGET_US} µs inline budget at their bound.\n`)
