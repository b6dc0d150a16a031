import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { cpus, loadavg } from 'node:os'
import { type BaseTree, prepareBaseTree } from './lib/base-tree.ts'
import { type Measure, runGuard } from './lib/guard-compare.ts'
import { GUARDED } from './lib/guard-figures.ts'
import { measureFirst } from './lib/guard-first.ts'
import { measureHeavy } from './lib/guard-heavy.ts'
import { type GuardInfo, type GuardReport, textTable, writeGuardReport } from './lib/guard-report.ts'
import { measureSmall } from './lib/guard-small.ts'
import { measureStall } from './lib/guard-stall.ts'
import { chooseBase, type GuardTrees } from './lib/guard-trees.ts'

// `npm run bench:guard`: the latency guard (bench/README.md). The base tree (BENCH_BASE_REF, else the
// commit in bench/guard-base) and this tree run their gateways side by side, in alternating rounds; every
// guarded figure (bench/lib/guard-figures.ts) is compared head ÷ base against its tolerance. Prints one
// table, writes bench/results/guard.md and guard.json; exits 1 when a figure is worse than its tolerance
// (after a second, longer measurement), 2 when the guard could not measure (a tree that does not start).
// BENCH_GUARD_ONLY=id,id measures only those figures (a partial run, said so in the report).
const ROOT = new URL('../', import.meta.url).pathname
const RESULTS = new URL('results/', import.meta.url).pathname
const startedAt = new Date()
const elapsed = () => `${((Date.now() - startedAt.getTime()) / 1000).toFixed(0).padStart(4)} s`
const log = (line: string) => process.stdout.write(`[${elapsed()}] ${line}\n`)

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
}

function headCommit(): string {
  try {
    const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== ''
    return `${git(['rev-parse', '--short=12', 'HEAD'])}${dirty ? ' (with uncommitted changes)' : ''}`
  } catch {
    return 'this tree (not a git checkout)'
  }
}

// Bounded, whatever happens: past the deadline, or on SIGINT/SIGTERM, the guard exits non-zero; the exit
// handlers kill the gateways and redis-servers still running (guard-trees.ts, test/helpers/redis-server.ts)
// and remove the base tree.
const DEADLINE_S = Number(process.env.BENCH_GUARD_DEADLINE_S ?? 900)
let base: BaseTree | undefined
process.once('exit', () => {
  if (base) rmSync(base.dir, { recursive: true, force: true })
})
process.once('SIGINT', () => process.exit(130))
process.once('SIGTERM', () => process.exit(143))
setTimeout(() => {
  process.stdout.write(
    `\nGUARD COULD NOT MEASURE: not done within ${DEADLINE_S} s (BENCH_GUARD_DEADLINE_S)\n`,
  )
  process.exit(2)
}, DEADLINE_S * 1000).unref()

const only = (process.env.BENCH_GUARD_ONLY ?? '').split(',').filter(Boolean)
const unknown = only.filter((id) => !GUARDED.some((f) => f.id === id))
if (unknown.length > 0) {
  process.stderr.write(
    `unknown figure: ${unknown.join(', ')} (have: ${GUARDED.map((f) => f.id).join(', ')})\n`,
  )
  process.exit(2)
}
const figures = GUARDED.filter((f) => only.length === 0 || only.includes(f.id))

let pinned: string | undefined
try {
  pinned = await readFile(new URL('guard-base', import.meta.url), 'utf8')
} catch {
  // no pin: BENCH_BASE_REF must be set (chooseBase says so)
}

const report: GuardReport = { info: {} as GuardInfo, passed: false, figures: [] }
let chosen = { ref: '?', from: '?' }
try {
  chosen = chooseBase(process.env.BENCH_BASE_REF, pinned)
  log(`base: ${chosen.ref} (from ${chosen.from}); head: ${headCommit()}`)
  base = await prepareBaseTree(chosen.ref).catch((err: Error) => {
    if (chosen.from !== 'bench/guard-base') throw err
    throw new Error(
      `${err.message} (the commit pinned in bench/guard-base: a shallow clone may not hold it; fetch the history, e.g. git fetch --unshallow)`,
    )
  })
  const trees: GuardTrees = {
    base: { name: 'base', label: base.commit.slice(0, 12), tree: base },
    head: { name: 'head', label: headCommit() },
  }
  const measure: Measure = (group, wanted) => {
    if (group === 'small') return measureSmall(trees, wanted)
    if (group === 'heavy') return measureHeavy(trees, wanted)
    if (group === 'first') return measureFirst(trees, wanted)
    return measureStall(trees, wanted, log)
  }
  const run = await runGuard(figures, measure, log)
  report.figures = run.figures
  if (run.error) report.error = run.error
  report.passed = !run.error && run.figures.every((f) => f.pass)
} catch (err) {
  report.error = err instanceof Error ? err.message : String(err)
} finally {
  await base?.remove()
}

report.info = {
  startedAt: startedAt.toISOString(),
  seconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
  node: process.version,
  machine: `${cpus()[0]?.model.trim() ?? 'unknown CPU'} × ${cpus().length}`,
  load: { averages: loadavg(), cores: cpus().length },
  base: { ref: chosen.ref, commit: base?.commit ?? '?', from: chosen.from },
  head: { commit: headCommit() },
}
if (only.length > 0) report.info.head.commit += ` (partial run: ${only.join(', ')})`
await writeGuardReport(RESULTS, report)

process.stdout.write(
  `\nLatency guard: head ${report.info.head.commit} ÷ base ${report.info.base.commit.slice(0, 12)}` +
    ` (${chosen.from}), ${report.info.seconds} s\n\n`,
)
if (report.figures.length > 0) process.stdout.write(`${textTable(report.figures)}\n\n`)
if (report.error) {
  process.stdout.write(`GUARD COULD NOT MEASURE: ${report.error}\n`)
  process.exitCode = 2
} else if (!report.passed) {
  const failed = report.figures.filter((f) => !f.pass).map((f) => f.spec.id)
  process.stdout.write(`GUARD FAILED: ${failed.join(', ')} worse than tolerance, measured twice\n`)
  process.exitCode = 1
} else {
  process.stdout.write('guard passed\n')
}
process.stdout.write(`Report: ${RESULTS}guard.md (figures per round: guard.json)\n`)
// whatever a failed measurement left open (a socket, a timer) does not keep the job waiting
process.exit(process.exitCode ?? 0)
