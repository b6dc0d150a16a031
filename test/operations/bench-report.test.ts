import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ratioChart } from '../../bench/lib/chart.ts'
import { type RunInfo, reportMarkdown, type ScenarioOutcome, writeReport } from '../../bench/lib/report.ts'

const INFO: RunInfo = {
  startedAt: '2026-11-02T10:00:00.000Z',
  seconds: 312,
  node: 'v24.21.0',
  machine: 'Test CPU × 2, linux 6.1 x64',
  commit: 'abc1234',
  settings: 'BENCH_ROUNDS=3 BENCH_SECONDS=5',
  partial: false,
}

const OUTCOMES: ScenarioOutcome[] = [
  {
    name: 'small-hash',
    title: 'Small sha256 through the gateway vs bare Fastify TLS',
    target: { ratio: 0.9, text: 'gateway ≥ 0.9× bare Fastify req/s' },
    result: {
      rows: [
        { label: 'bare Fastify TLS', value: 20_000, unit: 'req/s', p99_ms: 4.5 },
        { label: 'Anvil gateway', value: 18_600.4, unit: 'req/s', p99_ms: 5.25 },
      ],
      ratio: 0.93,
    },
  },
  {
    name: 'rate-limit-stacks',
    title: 'Rate limited on Redis <vs> Express | stack',
    target: { ratio: 1.5, text: 'gateway ≥ 1.5× Express' },
    result: { rows: [{ label: 'Anvil | Redis', value: 9000, unit: 'req/s' }], ratio: 1.2 },
  },
  {
    name: 'isolation',
    title: 'Free flood vs paid latency',
    target: { ratio: 0.8, text: 'paid p99 ≤ 1.25× unloaded' },
    error: 'redis-server not found',
  },
]

describe('bench report', () => {
  it('summarises every scenario with its ratio, target and verdict', () => {
    const md = reportMarkdown(OUTCOMES, INFO)
    expect(md).toContain('commit abc1234, Node v24.21.0, Test CPU × 2')
    expect(md).toContain('| small-hash | 0.930× | gateway ≥ 0.9× bare Fastify req/s | meets |')
    expect(md).toContain('| rate-limit-stacks | 1.200× | gateway ≥ 1.5× Express | **misses** |')
    expect(md).toContain('| isolation | — | paid p99 ≤ 1.25× unloaded | did not run |')
    expect(md).toContain('Did not run: redis-server not found')
    expect(md).toContain('![Ratios to baselines](ratios.svg)')
    expect(md).toContain('(../../docs/operations.md#benchmark-report)')
  })

  it('says whether other work loaded the machine during the run (issue 18)', () => {
    const busy = reportMarkdown(OUTCOMES, { ...INFO, load: { averages: [9.1, 8.04, 7.5], cores: 2 } })
    expect(busy).toContain(
      'Load average (1 / 5 / 15 min) at the end of the run: 9.1 / 8.0 / 7.5 on 2 cores: the machine was loaded',
    )
    const quiet = reportMarkdown(OUTCOMES, { ...INFO, load: { averages: [0.5, 0.4, 0.3], cores: 2 } })
    expect(quiet).toContain('at the end of the run: 0.5 / 0.4 / 0.3 on 2 cores.\n')
    expect(reportMarkdown(OUTCOMES, INFO)).not.toContain('Load average')
  })

  it('lists every figure with its unit and p99, escaping table syntax', () => {
    const md = reportMarkdown(OUTCOMES, INFO)
    expect(md).toContain('| Anvil gateway | 18,600 | req/s | 5.25 ms |')
    expect(md).toContain('| Anvil \\| Redis | 9,000 | req/s |  |')
    expect(md).toContain('Ratio 0.930× — meets the target: gateway ≥ 0.9× bare Fastify req/s.')
    expect(reportMarkdown(OUTCOMES, { ...INFO, partial: true })).toContain('Partial run')
  })

  it('charts each ratio from parity on a log scale, green when it meets its target and red when not', () => {
    const svg = ratioChart(OUTCOMES)
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true)
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true)
    const bars = [...svg.matchAll(/<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"[^>]*fill="(#[0-9a-f]+)"/g)]
    expect(bars.map((b) => b[3])).toEqual(['#2e9d4f', '#d0393e'])
    const parity = Number(/<line x1="([\d.]+)"[^>]*stroke="#333" stroke-dasharray/.exec(svg)![1])
    const [below, above] = bars.map((b) => ({ x: Number(b[1]), width: Number(b[2]) })) as [
      { x: number; width: number },
      { x: number; width: number },
    ]
    // 0.93× ends left of parity, 1.2× starts at parity and goes right, lengths in log proportion
    expect(below.x + below.width).toBeCloseTo(parity, 0)
    expect(above.x).toBeCloseTo(parity, 0)
    expect(above.width / below.width).toBeCloseTo(Math.log(1.2) / -Math.log(0.93), 1)
    expect(svg).toContain('did not run: redis-server not found')
    // titles are escaped, so the document stays well-formed
    expect(svg).toContain('Rate limited on Redis &#60;vs&#62; Express | stack')
    expect(svg).not.toMatch(/<vs>/)
  })

  it('marks informational targets as such, not as misses', () => {
    const info: ScenarioOutcome = {
      name: 'dispatch',
      title: 'Inline vs pool',
      target: { ratio: 1, text: 'informational: where pool throughput passes inline' },
      result: { rows: [], ratio: 0.76 },
    }
    expect(reportMarkdown([info], INFO)).toContain(
      '| dispatch | 0.760× | informational: where pool throughput passes inline | informational |',
    )
    expect(ratioChart([info])).toContain('fill="#7a8699"')
  })

  it('writes report.md, ratios.svg and results.json', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'anvil-bench-report-'))
    try {
      await writeReport(dir, OUTCOMES, INFO)
      expect(await readFile(join(dir, 'report.md'), 'utf8')).toBe(reportMarkdown(OUTCOMES, INFO))
      expect(await readFile(join(dir, 'ratios.svg'), 'utf8')).toBe(ratioChart(OUTCOMES))
      const raw = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8'))
      expect(raw.outcomes[0].result.ratio).toBe(0.93)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
