import { performance } from 'node:perf_hooks'
import { COSTS, heavyInput, INLINE_BUDGET_US, inlineBound, inlineUpTo } from '../src/exec/costs.ts'
import { OPERATIONS, type OpName, type OpSpec } from '../src/ops/registry.ts'
import { worstCase } from './stall-inputs.ts'

// `node bench/cost-models.ts [op ...]`: times each op's worst-case body (bench/stall-inputs.ts) at its
// inline bound, on this thread, as an inline request costs the event loop: JSON.parse of the body, its
// schema, the op, and the JSON text of its answer; and prints the table of docs/dispatch.md#cost-models: µs per KiB measured, the
// bound it allows, and the bound and cost declared in src/exec/costs.ts. Not in the default bench list
// (`npm run bench`): it measures the op code alone, not the gateway.

const KiB = 1024
const ROUNDS = Number(process.env.BENCH_COST_ROUNDS ?? 15)
let refused = ''

// The request body: hash and hmac take their algorithm from the path (the op's input adds it), so the
// body, which their schema checks strictly, does not carry it.
function bodyOf(name: OpName, bytes: number): Record<string, unknown> {
  const input = worstCase(name, bytes) as Record<string, unknown>
  if (name !== 'hash' && name !== 'hmac') return input
  const { algorithm: _path, ...body } = input
  return body
}

async function timeOnce(spec: OpSpec, body: string, path: Record<string, unknown>): Promise<number> {
  const started = performance.now()
  try {
    const parsed = JSON.parse(body)
    const input = spec.body ? spec.body.parse(parsed) : parsed
    JSON.stringify(await spec.run({ ...input, ...path }))
  } catch (err) {
    // a refused worst case costs what it cost until refused; the table says so
    refused = (err as { code?: string }).code ?? (err as Error).name
  }
  return performance.now() - started
}

// The best of ROUNDS after a warm-up: the op's own cost, not the noise of a shared machine.
async function measure(name: OpName): Promise<{ bytes: number; ms: number; usPerKiB: number }> {
  const spec = OPERATIONS[name] as OpSpec
  const text = JSON.stringify(bodyOf(name, inlineUpTo(name) - 256))
  const body = Buffer.byteLength(text)
  const path = name === 'hash' || name === 'hmac' ? { algorithm: 'sha512' } : {}
  for (let i = 0; i < 3; i++) await timeOnce(spec, text, path)
  let best = Number.POSITIVE_INFINITY
  for (let i = 0; i < ROUNDS; i++) best = Math.min(best, await timeOnce(spec, text, path))
  return { bytes: body, ms: best, usPerKiB: (best * 1000) / (body / KiB) }
}

const wanted = process.argv.slice(2) as OpName[]
const names = (Object.keys(OPERATIONS) as OpName[]).filter((n) => wanted.length === 0 || wanted.includes(n))
process.stdout.write(
  `| op | worst case | body | worst-case ms | µs/KiB measured | declared µs/KiB | inline bound (declared) | bound from measured |\n|---|---|---|---|---|---|---|---|\n`,
)
let over = 0
for (const name of names) {
  refused = ''
  const m = await measure(name)
  const input = bodyOf(name, inlineUpTo(name) - 256)
  const pool = heavyInput(name, input) ? ' (heavy: pool)' : ''
  const note = `${refused ? ` (refused: ${refused})` : ''}${pool}`
  const declared = COSTS[name]
  const fromMeasured = inlineBound({ worst: '', usPerKiB: m.usPerKiB }) / KiB
  if (m.ms * 1000 > INLINE_BUDGET_US && !pool) over++
  process.stdout.write(
    `| ${name} | ${declared.worst}${note} | ${(m.bytes / KiB).toFixed(1)} KiB | ${m.ms.toFixed(3)} | ${m.usPerKiB.toFixed(1)} | ${declared.usPerKiB} | ${inlineUpTo(name) / KiB} KiB | ${fromMeasured} KiB |\n`,
  )
}
process.stdout.write(`\n${over} op(s) over the ${INLINE_BUDGET_US} µs inline budget at their bound.\n`)
