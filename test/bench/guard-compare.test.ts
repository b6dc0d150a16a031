import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import {
  type FigureOutcome,
  judge,
  type Measure,
  type Measured,
  median,
  ratioBound,
  roundOrder,
  runGuard,
  toleranceText,
} from '../../bench/lib/guard-compare.ts'
import { type FigureSpec, GUARDED } from '../../bench/lib/guard-figures.ts'
import { guardMarkdown, textTable } from '../../bench/lib/guard-report.ts'
import { chooseBase } from '../../bench/lib/guard-trees.ts'

// The latency guard's arithmetic (bench/lib/guard-compare.ts) on synthetic figures: no gateway runs here.

const cpu: FigureSpec = {
  id: 'cpu',
  label: 'CPU per request',
  unit: 'µs',
  better: 'lower',
  tolerance: { kind: 'relative', worse: 0.25 },
  group: 'small',
  rounds: { first: 5, again: 9 },
}
const throughput: FigureSpec = {
  id: 'sha',
  label: 'sha256 throughput',
  unit: 'MiB/s',
  better: 'higher',
  tolerance: { kind: 'relative', worse: 0.25 },
  group: 'heavy',
  rounds: { first: 5, again: 9 },
}
const stall: FigureSpec = {
  id: 'stall',
  label: 'canary worst wait',
  unit: 'ms',
  better: 'lower',
  tolerance: { kind: 'absolute', max: 150, noisy: { worse: 0.5 } },
  group: 'stall',
  rounds: { first: 3, again: 5 },
}

// `n` rounds around `value`, ±spread (alternating above and below), as a measure would return them
function around(value: number, n: number, spread = 0): number[] {
  return Array.from({ length: n }, (_, i) => value * (1 + (i % 2 ? spread : -spread)))
}

describe("the guard's comparison (bench/lib/guard-compare.ts)", () => {
  it('takes medians over rounds, so one disturbed round moves nothing', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([])).toBeNaN()
    const j = judge(cpu, { base: [100, 101, 99, 100, 100], head: [102, 400, 101, 103, 100] })
    expect(j.head).toBe(102)
    expect(j.pass).toBe(true)
  })

  it('alternates which tree goes first in each round (ABBA), so drift weighs on both alike', () => {
    expect([0, 1, 2, 3].map(roundOrder)).toEqual([
      ['base', 'head'],
      ['head', 'base'],
      ['base', 'head'],
      ['head', 'base'],
    ])
  })

  it('passes head ÷ base up to the tolerance where lower is better, and fails beyond it', () => {
    expect(ratioBound(cpu)).toBe(1.25)
    expect(toleranceText(cpu)).toBe('≤ 1.25×')
    const at = judge(cpu, { base: around(200, 5), head: around(250, 5) })
    expect(at.ratio).toBe(1.25)
    expect(at.pass).toBe(true)
    const over = judge(cpu, { base: around(200, 5), head: around(251, 5) })
    expect(over.pass).toBe(false)
    // faster is never a failure
    expect(judge(cpu, { base: around(200, 5), head: around(50, 5) }).pass).toBe(true)
  })

  it('turns the bound over where higher is better (a throughput)', () => {
    expect(ratioBound(throughput)).toBe(0.8)
    expect(toleranceText(throughput)).toBe('≥ 0.80×')
    expect(judge(throughput, { base: around(400, 5), head: around(320, 5) }).pass).toBe(true)
    expect(judge(throughput, { base: around(400, 5), head: around(310, 5) }).pass).toBe(false)
    expect(judge(throughput, { base: around(400, 5), head: around(900, 5) }).pass).toBe(true)
  })

  it('holds head to an absolute bound, judging it against base only where base is over the bound too', () => {
    expect(toleranceText(stall)).toBe('head ≤ 150 ms (≤ 1.50× if base > 150)')
    // within the bound: passes whatever base measured
    expect(judge(stall, { base: [20, 25, 30], head: [140, 120, 149] }).pass).toBe(true)
    // over it on a machine where base stays under: a stall the change brought
    const stalled = judge(stall, { base: [40, 45, 50], head: [160, 180, 170] })
    expect(stalled.pass).toBe(false)
    expect(stalled.noisy).toBeUndefined()
    // base over the bound as well: the machine's noise; head within 1.5× of base passes, beyond fails
    const noisy = judge(stall, { base: [170, 200, 180], head: [210, 190, 230] })
    expect(noisy.noisy).toBe(true)
    expect(noisy.pass).toBe(true)
    expect(judge(stall, { base: [170, 200, 180], head: [500, 450, 520] }).pass).toBe(false)
  })

  it("draws a worst-case figure from each case's median over the rounds, so a one-round hiccup is not a stall", () => {
    const worstCaseStall: FigureSpec = { ...stall, summary: 'worst case' }
    // base: the machine held one case once for 1.3 s; its median stays low. Head: one case holds the loop
    // every round
    const cases = {
      base: { 'free hash 128 KiB': [30, 1290, 35], 'free url.parse': [40, 42, 38] },
      head: { 'free hash 128 KiB': [31, 33, 29], 'free url.parse': [180, 175, 190] },
    }
    const j = judge(worstCaseStall, { base: [1290, 42, 38], head: [180, 175, 190], cases })
    expect(j).toMatchObject({ base: 40, head: 180, rounds: 3, pass: false })
    expect(j.worst).toEqual({ base: 'free url.parse', head: 'free url.parse' })
    // the same rounds judged by each round's worst would have blamed base's hiccup, not head's stall
    expect(judge(stall, { base: [1290, 42, 38], head: [180, 175, 190] }).base).toBe(42)
    // without cases there is nothing to judge
    expect(judge(worstCaseStall, { base: [1, 2], head: [1, 2] })).toMatchObject({ pass: false })
  })

  it('fails a figure it could not measure: no rounds, or a round without a number', () => {
    expect(judge(cpu, undefined)).toMatchObject({ pass: false, problem: 'no samples' })
    expect(judge(cpu, { base: [1, 2], head: [] })).toMatchObject({ pass: false, problem: 'no samples' })
    expect(judge(cpu, { base: [100, 100, 100], head: [100, Number.NaN, 100] })).toMatchObject({
      pass: false,
      problem: 'a round gave no number',
    })
  })

  it("reports a figure of an op base does not have as new, passing only when head's rounds are numbers", () => {
    const judged = judge(cpu, { base: [], head: [90, 100, 110], baseLacks: true })
    expect(judged).toMatchObject({ pass: true, new: true, head: 100, rounds: 3 })
    expect(judged.ratio).toBeNaN()
    expect(judge(cpu, { base: [], head: [], baseLacks: true })).toMatchObject({ pass: false, new: true })
    expect(judge(cpu, { base: [], head: [100, Number.NaN], baseLacks: true })).toMatchObject({
      pass: false,
      problem: 'no samples',
    })
  })
})

// A synthetic measure: for each call, the figures it is given (per id, the call number → [base, head]
// values), recording what it was asked for.
function scripted(script: Record<string, [number, number][]>) {
  const calls: { group: string; ids: string[]; rounds: number[] }[] = []
  const seen: Record<string, number> = {}
  const measure: Measure = async (group, wanted) => {
    calls.push({ group, ids: wanted.map((w) => w.spec.id), rounds: wanted.map((w) => w.rounds) })
    const out: Measured = {}
    for (const { spec, rounds } of wanted) {
      const n = seen[spec.id] ?? 0
      seen[spec.id] = n + 1
      const [base, head] = script[spec.id]![n]!
      out[spec.id] = { base: around(base, rounds, 0.02), head: around(head, rounds, 0.02) }
    }
    return out
  }
  return { measure, calls }
}

describe('runGuard: a failing figure is measured again, longer, and that measurement decides', () => {
  const specs = [cpu, throughput, stall]

  it('passes without a second measurement when every figure is within its tolerance', async () => {
    const { measure, calls } = scripted({ cpu: [[200, 210]], sha: [[400, 380]], stall: [[30, 40]] })
    const { figures, error } = await runGuard(specs, measure)
    expect(error).toBeUndefined()
    expect(figures.map((f) => [f.spec.id, f.pass, f.second])).toEqual([
      ['cpu', true, undefined],
      ['sha', true, undefined],
      ['stall', true, undefined],
    ])
    // one call per group, each figure with its first rounds
    expect(calls).toEqual([
      { group: 'small', ids: ['cpu'], rounds: [5] },
      { group: 'heavy', ids: ['sha'], rounds: [5] },
      { group: 'stall', ids: ['stall'], rounds: [3] },
    ])
  })

  it('a first failure that the longer measurement does not repeat passes (noise, not a regression)', async () => {
    const { measure, calls } = scripted({
      cpu: [
        [200, 300],
        [200, 205],
      ],
      sha: [[400, 390]],
      stall: [[30, 40]],
    })
    const { figures } = await runGuard(specs, measure)
    const f = figures[0]!
    expect(f.first.pass).toBe(false)
    expect(f.second?.pass).toBe(true)
    expect(f.pass).toBe(true)
    expect(f.second?.rounds).toBe(9)
    // only the failed figure is measured again, with its longer rounds
    expect(calls.slice(3)).toEqual([{ group: 'small', ids: ['cpu'], rounds: [9] }])
  })

  it('a regression that both measurements show fails the guard', async () => {
    const { measure } = scripted({
      cpu: [
        [200, 300],
        [200, 310],
      ],
      sha: [
        [400, 200],
        [400, 210],
      ],
      stall: [[30, 40]],
    })
    const { figures } = await runGuard(specs, measure)
    expect(figures.map((f) => [f.spec.id, f.pass])).toEqual([
      ['cpu', false],
      ['sha', false],
      ['stall', true],
    ])
    expect(figures[0]!.second!.ratio).toBeCloseTo(1.55, 2)
  })

  it('a first pass that fits but a second that fails: the second decides', async () => {
    const { measure } = scripted({
      cpu: [
        [200, 260],
        [200, 400],
      ],
      sha: [[400, 400]],
      stall: [[30, 40]],
    })
    const { figures } = await runGuard(specs, measure)
    expect(figures[0]!.first.pass).toBe(false)
    expect(figures[0]!.pass).toBe(false)
  })

  it('a measure that throws (a tree that does not start) is no verdict: the error, and what was measured', async () => {
    let n = 0
    const measure: Measure = async (_group, wanted) => {
      if (n++ === 1) throw new Error("the base tree's gateway (abc1234) did not start: exited with 1")
      return Object.fromEntries(
        wanted.map(({ spec, rounds }) => [spec.id, { base: around(100, rounds), head: around(100, rounds) }]),
      )
    }
    const run = await runGuard(specs, measure)
    expect(run.error).toMatch(/base tree's gateway \(abc1234\) did not start/)
    expect(run.figures.map((f) => f.spec.id)).toEqual(['cpu'])
  })
})

describe("the guard's table and report (bench/lib/guard-report.ts)", () => {
  const outcome = (spec: FigureSpec, base: number, head: number, again?: [number, number]): FigureOutcome => {
    const first = judge(spec, { base: around(base, 5), head: around(head, 5) })
    const second = again ? judge(spec, { base: around(again[0], 9), head: around(again[1], 9) }) : undefined
    return { spec, first, ...(second ? { second } : {}), pass: (second ?? first).pass }
  }
  const figures = [outcome(cpu, 200, 210), outcome(throughput, 400, 200, [400, 180]), outcome(stall, 30, 35)]

  it('prints one row per figure: figure, base, head, head ÷ base, tolerance, verdict', () => {
    const lines = textTable(figures).split('\n')
    expect(lines[0]).toMatch(/^figure\s+base\s+head\s+head÷base\s+tolerance\s+verdict$/)
    expect(lines[1]).toMatch(
      /^CPU per request \(µs, lower is better\)\s+200\s+210\s+1\.05×\s+≤ 1\.25×\s+pass$/,
    )
    // the failed figure shows its second measurement
    expect(lines[2]).toMatch(
      /sha256 throughput \(MiB\/s, higher is better\)\s+400\s+180\s+0\.45×\s+≥ 0\.80×\s+FAIL$/,
    )
    expect(lines[3]).toMatch(/30\.0\s+35\.0\s+1\.17×\s+head ≤ 150 ms \(≤ 1\.50× if base > 150\)\s+pass$/)
  })

  it('writes a report that says the outcome, both commits, the rounds and where to read how', () => {
    const md = guardMarkdown({
      info: {
        startedAt: '2026-11-28T00:00:00.000Z',
        seconds: 420,
        node: 'v24.21.0',
        machine: 'Test CPU × 2',
        load: { averages: [9, 8, 7], cores: 2 },
        base: {
          ref: '00fb065',
          commit: '00fb065ec1e4bff05bfa09b04a46cba2c2281b62',
          from: 'bench/guard-base',
        },
        head: { commit: 'abcdef012345' },
      },
      passed: false,
      figures,
    })
    expect(md).toContain(
      '**FAILED** — head abcdef012345 against base 00fb065ec1e4 (bench/guard-base: 00fb065)',
    )
    expect(md).toContain('the machine was loaded by other work')
    expect(md).toContain(
      '| sha256 throughput (MiB/s, higher is better) | 400 | 180 | 0.45× | ≥ 0.80× | **FAIL** |',
    )
    expect(md).toContain(
      '- **sha** (MiB/s): 5 rounds; base 400, 400, 400, 400, 400; head 200, 200, 200, 200, 200',
    )
    expect(md).toContain('  - failed at 0.50× (head 200), measured again: 9 rounds')
    expect(md).toContain('[bench/README.md](../README.md#the-latency-guard)')
  })
})

describe('the guarded figures and the base', () => {
  it("guards what issue 23 asks for and this wave's heavy ops, each with a tolerance and more rounds the second time", () => {
    expect(GUARDED.map((f) => f.id)).toEqual([
      'cpu-small-embedded',
      'cpu-small-redis',
      'cpu-small-redis-1',
      'diff-10k',
      'diff-100k',
      'minify-raw',
      'minify-input',
      'sha256-raw',
      'first-diff-10k',
      'argon2id-hash',
      'validate-1k',
      'query-2m',
      'convert-yaml',
      'zstd-raw',
      'stall-worst',
    ])
    for (const f of GUARDED) expect(f.rounds.again, f.id).toBeGreaterThan(f.rounds.first)
    const stallWorst = GUARDED.find((f) => f.id === 'stall-worst')!
    expect(stallWorst.tolerance).toMatchObject({ kind: 'absolute', max: 150 })
    expect(stallWorst.summary).toBe('worst case')
  })

  it('bench/README.md describes every guarded figure with its tolerance, under the heading the report links', async () => {
    const readme = await readFile(new URL('../../bench/README.md', import.meta.url), 'utf8')
    expect(readme).toMatch(/^## The latency guard$/m)
    const guarded = readme.slice(readme.indexOf('### What is guarded'), readme.indexOf('### How it runs'))
    for (const f of GUARDED) {
      const row = guarded.split('\n').find((line) => line.startsWith(`| \`${f.id}\` |`))
      expect(row, f.id).toBeDefined()
      const bound = ratioBound(f)
      const t = f.tolerance
      expect(row, f.id).toContain(
        bound === undefined ? `head ≤ ${t.kind === 'absolute' ? t.max : ''} ms` : `${bound.toFixed(2)}× base`,
      )
    }
    // and the pin it names is one commit on one line
    const pin = await readFile(new URL('../../bench/guard-base', import.meta.url), 'utf8')
    expect(pin).toMatch(/^[0-9a-f]{40}\n$/)
  })

  it('takes BENCH_BASE_REF when set, else the first line of bench/guard-base, else refuses', () => {
    expect(chooseBase('HEAD~1', 'abc\n')).toEqual({ ref: 'HEAD~1', from: 'BENCH_BASE_REF' })
    expect(chooseBase('', '00fb065ec1e4\n')).toEqual({ ref: '00fb065ec1e4', from: 'bench/guard-base' })
    expect(chooseBase(undefined, '  00fb065  \n')).toEqual({ ref: '00fb065', from: 'bench/guard-base' })
    expect(() => chooseBase(undefined, undefined)).toThrow(/set BENCH_BASE_REF or write a commit/)
    expect(() => chooseBase(' ', '\n')).toThrow(/no base/)
  })
})
