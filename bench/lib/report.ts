import { execFileSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { arch, cpus, loadavg, platform, release } from 'node:os'
import { join } from 'node:path'
import { ratioChart } from './chart.ts'
import { type ScenarioOutcome, verdict } from './verdict.ts'

export type { ScenarioOutcome } from './verdict.ts'

export interface RunInfo {
  startedAt: string
  seconds: number
  node: string
  machine: string
  commit: string
  settings: string
  // load averages (1, 5, 15 min) when the run ended, and the cores: whether other work shared the machine
  load?: { averages: number[]; cores: number }
  // some scenarios were asked for by name, the others did not run
  partial: boolean
}

export function runInfo(startedAt: Date, partial: boolean): RunInfo {
  const cores = cpus()
  let commit = 'unknown'
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8' }).trim() !== ''
    commit = dirty ? `${sha} (with uncommitted changes)` : sha
  } catch {
    // not a git checkout: the report says so
  }
  return {
    startedAt: startedAt.toISOString(),
    seconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
    node: process.version,
    machine: `${cores[0]?.model.trim() ?? 'unknown CPU'} × ${cores.length}, ${platform()} ${release()} ${arch()}`,
    commit,
    settings: `BENCH_ROUNDS=${process.env.BENCH_ROUNDS ?? 3} BENCH_SECONDS=${process.env.BENCH_SECONDS ?? 5}`,
    load: { averages: loadavg(), cores: cores.length },
    partial,
  }
}

const number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })
const small = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 })

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}

function loadLine(load: NonNullable<RunInfo['load']>): string {
  const averages = load.averages.map((n) => n.toFixed(1)).join(' / ')
  const busy = (load.averages[2] ?? 0) > load.cores * 0.75
  return (
    `Load average (1 / 5 / 15 min) at the end of the run: ${averages} on ${load.cores} cores` +
    (busy
      ? ': the machine was loaded by other work, so req/s and, less so, CPU per request are inflated.'
      : '.')
  )
}

export function reportMarkdown(outcomes: ScenarioOutcome[], info: RunInfo): string {
  const lines = [
    '# Anvil benchmark report',
    '',
    `Run ${info.startedAt} (${info.seconds} s), commit ${info.commit}, Node ${info.node}, ${info.machine}, ${info.settings}.`,
    ...(info.load ? ['', loadLine(info.load)] : []),
    ...(info.partial ? ['', 'Partial run: only the scenarios named on the command line.'] : []),
    '',
    'Each scenario runs Anvil and its baseline in the same run on the same machine, alternating rounds, and',
    'reports the ratio ours ÷ baseline oriented so that higher is better. Compare ratios, not absolute',
    'figures: see [how to read this report](../../docs/operations.md#benchmark-report).',
    '',
    '## Summary',
    '',
    '| scenario | ratio | target | verdict |',
    '|---|---|---|---|',
    ...outcomes.map(
      (o) =>
        `| ${cell(o.name)} | ${o.result ? `${o.result.ratio.toFixed(3)}×` : '—'} | ${cell(o.target.text)} | ${verdict(o)} |`,
    ),
    '',
    '![Ratios to baselines](ratios.svg)',
    '',
    '## Figures',
  ]
  for (const o of outcomes) {
    lines.push('', `### ${o.name}: ${o.title}`, '')
    if (!o.result) {
      lines.push(`Did not run: ${o.error ?? 'unknown error'}`)
      continue
    }
    lines.push('| | value | unit | p99 |', '|---|---:|---|---:|')
    for (const row of o.result.rows) {
      const p99 = row.p99_ms === undefined ? '' : `${row.p99_ms.toFixed(2)} ms`
      lines.push(
        `| ${cell(row.label)} | ${(row.value < 10 ? small : number).format(row.value)} | ${cell(row.unit)} | ${p99} |`,
      )
    }
    const against = verdict(o) === 'informational' ? 'against' : `${verdict(o)} the target:`
    lines.push('', `Ratio ${o.result.ratio.toFixed(3)}× — ${against} ${o.target.text}.`)
  }
  return `${lines.join('\n')}\n`
}

// bench/results/: report.md, ratios.svg and results.json (the raw figures), all git-ignored.
export async function writeReport(dir: string, outcomes: ScenarioOutcome[], info: RunInfo): Promise<void> {
  await mkdir(dir, { recursive: true })
  await Promise.all([
    writeFile(join(dir, 'report.md'), reportMarkdown(outcomes, info)),
    writeFile(join(dir, 'ratios.svg'), ratioChart(outcomes)),
    writeFile(join(dir, 'results.json'), `${JSON.stringify({ info, outcomes }, null, 2)}\n`),
  ])
}
