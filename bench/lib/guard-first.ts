import { Agent, get } from 'node:https'
import { type Measured, roundOrder, type Tree } from './guard-compare.ts'
import type { FigureSpec } from './guard-figures.ts'
import { type Heavy, requests } from './guard-heavy.ts'
import { type GuardTrees, gatewayState, startTreeGateway } from './guard-trees.ts'
import { postTimed } from './post-timed.ts'

const MiB = 1024 * 1024

// first-diff-10k: per round and tree a fresh gateway (the heavy figures' plan), started and stopped alone,
// its first json/diff of 10k items a side timed end to end once /readyz has said 200, on a connection
// opened before (a GET /healthz), so the figure is the request's own and not a TLS handshake. Issue 41:
// what every paid customer's first requests after a deploy pay; /readyz should not say ready before the
// pools can answer at their warm speed.
export async function measureFirst(trees: GuardTrees, wanted: { spec: FigureSpec; rounds: number }[]) {
  const env = {
    LOG_LEVEL: 'warn',
    PLANS: JSON.stringify({ business: { max_json_bytes: 64 * MiB, compute_budget_ms: 60_000 } }),
  }
  const measured: Measured = {}
  for (const { spec, rounds } of wanted) {
    if (spec.id !== 'first-diff-10k') throw new Error(`measureFirst: no such figure ${spec.id}`)
    const h = requests(['diff-10k']).get('diff-10k')!
    const samples = { base: [] as number[], head: [] as number[] }
    for (let i = 0; i < rounds; i++) {
      for (const tree of roundOrder(i)) samples[tree].push(await firstRequest(trees, tree, h, spec.id, env))
    }
    measured[spec.id] = samples
  }
  return measured
}

async function firstRequest(
  trees: GuardTrees,
  tree: Tree,
  h: Heavy,
  id: string,
  env: Record<string, string>,
): Promise<number> {
  const g = await startTreeGateway(trees[tree], env)
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  try {
    await new Promise<void>((resolve, reject) => {
      get(`${g.url}/healthz`, { ca: g.ca, agent }, (res) => {
        res.resume()
        res.on('end', () => resolve())
      }).on('error', reject)
    })
    const r = await postTimed(`${g.url}${h.path}`, {
      ca: g.ca,
      agent,
      headers: { ...h.headers, authorization: `Bearer ${g.key}` },
      body: h.body,
    }).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err)
      throw new Error(
        `${id}: the ${tree} tree's gateway (${trees[tree].label}): ${message}; ${gatewayState(g)}`,
      )
    })
    const wrong = h.check(r.status, r.body)
    if (wrong) throw new Error(`${id}: the ${tree} tree's gateway (${trees[tree].label}) ${wrong}`)
    return h.value(r.ms)
  } finally {
    agent.destroy()
    await g.stop()
  }
}
