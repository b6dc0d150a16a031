import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type FigureOutcome, type Judgement, toleranceText } from './guard-compare.ts'

export interface GuardInfo {
  startedAt: string
  seconds: number
  node: string
  machine: string
  // load averages (1, 5, 15 min) at the end of the run, and the cores
  load: { averages: number[]; cores: number }
  base: { ref: string; commit: string; from: string }
  head: { commit: string }
}

export interface GuardReport {
  info: GuardInfo
  passed: boolean
  figures: FigureOutcome[]
  // why the guard could not measure (a tree that did not start, a request that failed): it fails then
  error?: string
}

export function formatValue(v: number): string {
  if (!Number.isFinite(v)) return '—'
  if (Math.abs(v) < 10) return v.toFixed(2)
  if (Math.abs(v) < 100) return v.toFixed(1)
  return Math.round(v).toLocaleString('en-US')
}

// pass; pass on the second measurement (the first one's failure was noise); FAIL
export function verdictText(o: FigureOutcome): string {
  if (o.pass) return o.second ? 'pass (2nd)' : 'pass'
  return 'FAIL'
}

function decisive(o: FigureOutcome): Judgement {
  return o.second ?? o.first
}

export interface Row {
  figure: string
  base: string
  head: string
  ratio: string
  tolerance: string
  verdict: string
}

// One row per figure, from the measurement that decided it.
export function rows(figures: FigureOutcome[]): Row[] {
  return figures.map((o) => {
    const j = decisive(o)
    return {
      figure: `${o.spec.label} (${o.spec.unit}, ${o.spec.better} is better)`,
      base: formatValue(j.base),
      head: formatValue(j.head),
      ratio: Number.isFinite(j.ratio) ? `${j.ratio.toFixed(2)}×` : '—',
      tolerance: toleranceText(o.spec),
      verdict:
        verdictText(o) +
        (j.problem ? ` (${j.problem})` : '') +
        (j.noisy ? ' (base over the bound too: judged head ÷ base)' : '') +
        (j.new ? ' (new: base has no such op)' : ''),
    }
  })
}

const HEADINGS: Row = {
  figure: 'figure',
  base: 'base',
  head: 'head',
  ratio: 'head÷base',
  tolerance: 'tolerance',
  verdict: 'verdict',
}
const COLUMNS = Object.keys(HEADINGS) as (keyof Row)[]

// The table printed at the end of a run: fixed-width columns, numbers right-aligned.
export function textTable(figures: FigureOutcome[]): string {
  const all = [HEADINGS, ...rows(figures)]
  const width = (c: keyof Row) => Math.max(...all.map((r) => r[c].length))
  const right = new Set<keyof Row>(['base', 'head', 'ratio'])
  const line = (r: Row) =>
    COLUMNS.map((c) => (right.has(c) ? r[c].padStart(width(c)) : r[c].padEnd(width(c))))
      .join('  ')
      .trimEnd()
  return [line(HEADINGS), ...rows(figures).map(line)].join('\n')
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}

function rounds(j: Judgement): string {
  const list = (v: number[]) => v.map(formatValue).join(', ')
  const line = `${j.rounds} rounds; base ${list(j.samples.base)}; head ${list(j.samples.head)}`
  if (!j.worst) return line
  // a worst-case figure: the rounds' worst waits, then the worst case by its median
  return `${line} (each round's worst); worst case by its median over the rounds: base ${formatValue(j.base)} (${j.worst.base}), head ${formatValue(j.head)} (${j.worst.head})`
}

export function guardMarkdown(report: GuardReport): string {
  const { info } = report
  const busy = (info.load.averages[2] ?? 0) > info.load.cores * 0.75
  const lines = [
    '# Anvil latency guard',
    '',
    `**${report.error ? 'COULD NOT MEASURE' : report.passed ? 'PASSED' : 'FAILED'}** — head ${info.head.commit} against base ${info.base.commit.slice(0, 12)} (${info.base.from}: ${cell(info.base.ref)}).`,
    '',
    `Run ${info.startedAt} (${info.seconds} s), Node ${info.node}, ${info.machine}. Load average (1 / 5 / 15 min) at the end: ` +
      `${info.load.averages.map((n) => n.toFixed(1)).join(' / ')} on ${info.load.cores} cores` +
      (busy
        ? ' (the machine was loaded by other work: absolute figures are inflated, ratios less so).'
        : '.'),
    '',
    'Both trees ran on this machine in the same run, in alternating rounds; each figure is the median over its',
    'rounds, compared head ÷ base against its tolerance. A figure that failed was measured again with more',
    'rounds and that second measurement decided (*pass (2nd)*). How to read this and what to do when it fails:',
    '[bench/README.md](../README.md#the-latency-guard).',
  ]
  if (report.error) lines.push('', `**The guard could not measure:** ${cell(report.error)}`)
  lines.push(
    '',
    '| figure | base | head | head÷base | tolerance | verdict |',
    '|---|---:|---:|---:|---|---|',
    ...rows(report.figures).map(
      (r) =>
        `| ${cell(r.figure)} | ${r.base} | ${r.head} | ${r.ratio} | ${cell(r.tolerance)} | ${r.verdict === 'FAIL' ? '**FAIL**' : r.verdict} |`,
    ),
  )
  if (report.figures.length > 0) {
    lines.push('', '## Rounds', '')
    for (const o of report.figures) {
      lines.push(`- **${o.spec.id}** (${o.spec.unit}): ${rounds(o.first)}`)
      if (o.second) {
        lines.push(
          `  - failed at ${o.first.ratio.toFixed(2)}× (head ${formatValue(o.first.head)}), measured again: ${rounds(o.second)}`,
        )
      }
    }
  }
  return `${lines.join('\n')}\n`
}

// bench/results/guard.md and guard.json (git-ignored, like the other reports).
export async function writeGuardReport(dir: string, report: GuardReport): Promise<void> {
  await mkdir(dir, { recursive: true })
  await Promise.all([
    writeFile(join(dir, 'guard.md'), guardMarkdown(report)),
    writeFile(join(dir, 'guard.json'), `${JSON.stringify(report, null, 2)}\n`),
  ])
}
