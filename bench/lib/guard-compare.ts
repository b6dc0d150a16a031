import type { FigureSpec, GuardGroup } from './guard-figures.ts'

// The guard's arithmetic, apart from any process or socket so that it is tested on synthetic figures
// (test/bench/guard-compare.test.ts): the order of each round, medians over rounds, head ÷ base against a
// figure's tolerance, and the second, longer measurement of a figure that failed, which decides.

export type Tree = 'base' | 'head'

// One figure's value in each measured round, per tree.
export interface Samples {
  base: number[]
  head: number[]
  // a worst-case figure's (FigureSpec.summary): per case, its value in each round; `base` and `head`
  // then hold each round's worst, for the report
  cases?: Record<Tree, Record<string, number[]>>
  // the base tree has no such op yet (its route answered 404): head alone was measured, and the figure is
  // new, recorded for the next change to be compared with
  baseLacks?: boolean
}

export type Measured = Record<string, Samples>

export interface Judgement {
  base: number
  head: number
  // head ÷ base of the medians
  ratio: number
  rounds: number
  pass: boolean
  // why a figure could not be judged (no samples, a value that is not a number)
  problem?: string
  // an absolute bound that base exceeded too: judged head ÷ base instead (FigureSpec's tolerance)
  noisy?: boolean
  // a new figure: base has no such op (Samples.baseLacks), nothing to compare
  new?: boolean
  // a worst-case figure's worst case, per tree
  worst?: Record<Tree, string>
  samples: Samples
}

export interface FigureOutcome {
  spec: FigureSpec
  first: Judgement
  // the longer measurement of a figure whose first one failed: the verdict is its
  second?: Judgement
  pass: boolean
}

// Measures the given figures of one group for that many rounds each, both trees.
export type Measure = (group: GuardGroup, wanted: { spec: FigureSpec; rounds: number }[]) => Promise<Measured>

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN
  const s = [...values].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

// Which tree goes first in round `i`: base, head, then head, base, and so on (ABBA), so that a machine
// whose load rises or falls during the run weighs on both trees alike instead of always on the second.
export function roundOrder(i: number): [Tree, Tree] {
  return i % 2 === 0 ? ['base', 'head'] : ['head', 'base']
}

// The bound on head ÷ base a relative tolerance sets: at most 1 + worse where lower is better, at least
// 1 ÷ (1 + worse) where higher is better. Undefined for an absolute tolerance.
export function ratioBound(spec: FigureSpec): number | undefined {
  if (spec.tolerance.kind !== 'relative') return undefined
  const worse = 1 + spec.tolerance.worse
  return spec.better === 'lower' ? worse : 1 / worse
}

// The tolerance in words for the table: "≤ 1.25×", "≥ 0.80×", "head ≤ 150 ms (≤ 1.50× if base > 150)".
export function toleranceText(spec: FigureSpec): string {
  const t = spec.tolerance
  if (t.kind === 'absolute') {
    return `head ≤ ${t.max} ${spec.unit} (≤ ${(1 + t.noisy.worse).toFixed(2)}× if base > ${t.max})`
  }
  return `${spec.better === 'lower' ? '≤' : '≥'} ${ratioBound(spec)!.toFixed(2)}×`
}

// The case whose median over the rounds is the highest: a case that holds the event loop does so in every
// round, while the machine's own hiccups (another process scheduled in) land on one case in one round and
// leave its median alone, which the worst single wait of a round would not.
export function worstCase(cases: Record<string, number[]>): { label: string; value: number } {
  let worst = { label: '', value: Number.NaN }
  for (const [label, values] of Object.entries(cases)) {
    const m = median(values)
    if (!(m <= worst.value)) worst = { label, value: m }
  }
  return worst
}

export function judge(spec: FigureSpec, samples: Samples | undefined): Judgement {
  const s = samples ?? { base: [], head: [] }
  if (s.baseLacks) {
    const head = median(s.head)
    const ok = s.head.length > 0 && s.head.every(Number.isFinite)
    return {
      base: Number.NaN,
      head,
      ratio: Number.NaN,
      rounds: s.head.length,
      samples: s,
      new: true,
      pass: ok,
      ...(ok ? {} : { problem: 'no samples' }),
    }
  }
  const rounds = Math.min(s.base.length, s.head.length)
  let base = median(s.base)
  let head = median(s.head)
  let worst: Record<Tree, string> | undefined
  if (spec.summary === 'worst case') {
    const b = worstCase(s.cases?.base ?? {})
    const h = worstCase(s.cases?.head ?? {})
    base = b.value
    head = h.value
    worst = { base: b.label, head: h.label }
  }
  const ratio = head / base
  const out = { base, head, ratio, rounds, samples: s, ...(worst ? { worst } : {}) }
  const bad = [...s.base, ...s.head, base, head].some((v) => !Number.isFinite(v))
  if (rounds === 0 || bad) {
    return { ...out, pass: false, problem: rounds === 0 ? 'no samples' : 'a round gave no number' }
  }
  const t = spec.tolerance
  if (t.kind === 'absolute') {
    if (head <= t.max) return { ...out, pass: true }
    // base beyond the bound as well: the machine's noise is, so the change is judged against base
    if (base > t.max) return { ...out, pass: ratio <= 1 + t.noisy.worse, noisy: true }
    return { ...out, pass: false }
  }
  const bound = ratioBound(spec)!
  return { ...out, pass: spec.better === 'lower' ? ratio <= bound : ratio >= bound }
}

function groupsOf(specs: readonly FigureSpec[]): GuardGroup[] {
  return [...new Set(specs.map((s) => s.group))]
}

export interface GuardRun {
  // in the order of the specs; a figure whose group was not reached is missing
  figures: FigureOutcome[]
  // the measure's error, when one threw: the guard then could not measure, whatever the figures say
  error?: string
}

// First every group with its first rounds; then every figure that failed, its group again with the
// longer rounds, measuring only the failed figures. The second measurement decides: a figure that fails
// it fails the guard, one that passes it passes (noise in the first, not a regression). A measure that
// throws (a gateway that does not start, a request that fails) is no verdict: the run stops there and
// returns the error with the figures measured so far.
export async function runGuard(
  specs: readonly FigureSpec[],
  measure: Measure,
  log: (line: string) => void = () => {},
): Promise<GuardRun> {
  const outcomes = new Map<string, FigureOutcome>()
  const figures = () => specs.flatMap((s) => outcomes.get(s.id) ?? [])
  try {
    for (const group of groupsOf(specs)) {
      const wanted = specs.filter((s) => s.group === group)
      log(`measuring ${group}: ${wanted.map((s) => s.id).join(', ')}`)
      const measured = await measure(
        group,
        wanted.map((spec) => ({ spec, rounds: spec.rounds.first })),
      )
      for (const spec of wanted) {
        const first = judge(spec, measured[spec.id])
        outcomes.set(spec.id, { spec, first, pass: first.pass })
      }
    }
    const failed = specs.filter((s) => !outcomes.get(s.id)!.pass)
    for (const group of groupsOf(failed)) {
      const wanted = failed.filter((s) => s.group === group)
      log(`measuring ${group} again, longer: ${wanted.map((s) => s.id).join(', ')}`)
      const measured = await measure(
        group,
        wanted.map((spec) => ({ spec, rounds: spec.rounds.again })),
      )
      for (const spec of wanted) {
        const second = judge(spec, measured[spec.id])
        const outcome = outcomes.get(spec.id)!
        outcomes.set(spec.id, { ...outcome, second, pass: second.pass })
      }
    }
  } catch (err) {
    return { figures: figures(), error: err instanceof Error ? err.message : String(err) }
  }
  return { figures: figures() }
}
