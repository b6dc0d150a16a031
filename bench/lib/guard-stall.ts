import type { PlanName } from '../../src/limits/plans.ts'
import { stallRun } from '../stall.ts'
import { craftedCases, opCases, rawCases, type StallCase } from '../stall-cases.ts'
import { UNLIMITED, workspaceKey } from './admin.ts'
import { type Measured, roundOrder, type Tree } from './guard-compare.ts'
import type { FigureSpec } from './guard-figures.ts'
import { focus, type GuardGateway, type GuardTrees, startTreeGateway } from './guard-trees.ts'

// The stall bench's cases that fit a guard's minutes (the whole bench takes about 4): issue 14's crafted
// inputs on the free and business plans, every op's worst case on the free plan (at its 256 KiB limit and
// just under its inline bound, which runs on the event loop: the case most likely to hold it), and the
// free plan's raw bodies. The business plan's 20 MiB and 256 MiB bodies stay in `npm run bench -- stall`.
export function guardStallCases(): StallCase[] {
  return [...craftedCases('free'), ...craftedCases('business'), ...opCases('free'), ...rawCases('free')]
}

// stall-worst: per round and tree, the cases one at a time while a canary GET /healthz every 5 ms runs
// (bench/stall.ts), the other tree's gateway frozen; per case the longest wait the canary saw. The figure
// is the worst case's median over the rounds (guard-compare.ts, worstCase). The sender runs below the
// gateway (nice 10, as in the stall bench) only where it can raise itself back afterwards (root, as CI
// runs): otherwise the rest of the guard would run niced.
export async function measureStall(
  trees: GuardTrees,
  wanted: { spec: FigureSpec; rounds: number }[],
  log: (line: string) => void,
) {
  const [only] = wanted
  if (!only || wanted.length > 1 || only.spec.id !== 'stall-worst') {
    throw new Error(`measureStall: measures stall-worst only, not ${wanted.map((w) => w.spec.id).join(', ')}`)
  }
  const cases = guardStallCases()
  const nice = process.getuid?.() === 0 ? 10 : 0
  const gateways: Partial<Record<Tree, GuardGateway>> = {}
  try {
    const keys = {} as Record<Tree, Record<PlanName, string>>
    for (const tree of ['base', 'head'] as const) {
      const g = await startTreeGateway(trees[tree], { LOG_LEVEL: 'warn' })
      gateways[tree] = g
      keys[tree] = {
        free: await workspaceKey(g, 'free', UNLIMITED),
        pro: await workspaceKey(g, 'pro', UNLIMITED),
        business: await workspaceKey(g, 'business', UNLIMITED),
      }
    }
    const samples = { base: [] as number[], head: [] as number[], cases: { base: {}, head: {} } }
    for (let i = 0; i < only.rounds; i++) {
      for (const tree of roundOrder(i)) {
        focus([gateways[tree]!], [gateways.base!, gateways.head!])
        const results = await stallRun(gateways[tree]!.url, keys[tree], cases, nice)
        const byCase: Record<string, number[]> = samples.cases[tree]
        for (const r of results) byCase[r.label] = [...(byCase[r.label] ?? []), r.canaryMax]
        const worst = results.reduce((a, b) => (b.canaryMax > a.canaryMax ? b : a))
        log(
          `  ${tree} round ${i + 1}: worst ${worst.canaryMax.toFixed(1)} ms (${worst.label}, ${worst.status})`,
        )
        samples[tree].push(worst.canaryMax)
      }
    }
    return { 'stall-worst': samples } satisfies Measured
  } finally {
    await Promise.all(Object.values(gateways).map((g) => g.stop()))
  }
}
