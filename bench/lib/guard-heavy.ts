import { createHash } from 'node:crypto'
import { Agent } from 'node:https'
import { applyJsonPatch } from '../../src/ops/json/patch/patch.ts'
import { jsonEqual } from '../../src/ops/json/value.ts'
import { jsonDocument } from '../json-format.ts'
import { type Measured, roundOrder, type Tree } from './guard-compare.ts'
import { itemDocuments } from './guard-documents.ts'
import type { FigureSpec } from './guard-figures.ts'
import { focus, type GuardGateway, type GuardTrees, gatewayState, startTreeGateway } from './guard-trees.ts'
import { postTimed } from './post-timed.ts'

const MiB = 1024 * 1024
const HASHED_BYTES = 64 * MiB

// One heavy request, as a client sends it, and the check its first answer must pass (a fast wrong answer
// is no figure). `value` turns the request's time into the figure (ms, or MiB/s for a throughput).
interface Heavy {
  path: string
  headers: Record<string, string>
  body: Buffer
  check(status: number, body: Buffer): string | undefined
  value(ms: number): number
}

function diff(items: number): Heavy {
  const { left, right } = itemDocuments(items)
  const body = JSON.stringify({
    left: { items: left },
    right: { items: right },
    array_key: 'id',
    output: 'both',
  })
  return {
    path: '/v1/json/diff',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(body),
    check(status, text) {
      if (status !== 200) return `answered ${status}: ${text.subarray(0, 300).toString()}`
      const { json_patch } = JSON.parse(text.toString()).data
      const patched = applyJsonPatch({ document: { items: left }, patch: json_patch }).result
      return jsonEqual(patched, { items: right }) ? undefined : 'its json_patch does not turn left into right'
    },
    value: (ms) => ms,
  }
}

function minify(form: 'raw' | 'input', text: string, expected: string): Heavy {
  const raw = form === 'raw'
  return {
    path: raw ? '/v1/json/format?mode=minify' : '/v1/json/format',
    headers: raw
      ? { 'content-type': 'application/octet-stream', accept: 'application/octet-stream' }
      : { 'content-type': 'application/json' },
    body: Buffer.from(raw ? text : JSON.stringify({ input: text, mode: 'minify' })),
    check(status, body) {
      if (status !== 200) return `answered ${status}: ${body.subarray(0, 300).toString()}`
      const output = raw ? body.toString() : JSON.parse(body.toString()).data.output
      return output === expected ? undefined : 'the minified output differs from JSON.stringify(JSON.parse())'
    },
    value: (ms) => ms,
  }
}

function sha256(): Heavy {
  const body = Buffer.alloc(HASHED_BYTES, 0x61)
  const digest = createHash('sha256').update(body).digest('hex')
  return {
    path: '/v1/hash/sha256',
    headers: { 'content-type': 'application/octet-stream' },
    body,
    check(status, text) {
      if (status !== 200) return `answered ${status}: ${text.subarray(0, 300).toString()}`
      return JSON.parse(text.toString()).data.digest === digest ? undefined : 'wrong digest'
    },
    value: (ms) => HASHED_BYTES / MiB / (ms / 1000),
  }
}

// The requests of the wanted figures, built once: the diff's documents of bench/lib/guard-documents.ts
// (issue 23's items, with bench/json-diff.ts's edits; its flat products do not show the regression the
// issue measured, these do: 2.1× at 10k items against 16384ed), and bench/json-format.ts's pretty API dump
// (15 MiB of estimate, 14.6 MiB of text).
function requests(ids: string[]): Map<string, Heavy> {
  const out = new Map<string, Heavy>()
  let document: { text: string; expected: string } | undefined
  const doc = () => {
    if (!document) {
      const text = jsonDocument(15 * MiB)
      document = { text, expected: JSON.stringify(JSON.parse(text)) }
    }
    return document
  }
  for (const id of ids) {
    if (id === 'diff-10k') out.set(id, diff(10_000))
    else if (id === 'diff-100k') out.set(id, diff(100_000))
    else if (id === 'minify-raw') out.set(id, minify('raw', doc().text, doc().expected))
    else if (id === 'minify-input') out.set(id, minify('input', doc().text, doc().expected))
    else if (id === 'sha256-raw') out.set(id, sha256())
    else throw new Error(`measureHeavy: no such figure ${id}`)
  }
  return out
}

// diff-10k, diff-100k, minify-raw, minify-input, sha256-raw: one request at a time (a latency figure),
// end to end through each tree's gateway (business plan, TLS, HTTP/1.1, a kept-alive connection). Per
// figure: a first request per tree, checked and not timed, then its rounds, base and head alternating,
// the other tree's gateway frozen (focus).
// The plan's JSON limit and compute budget are raised so that the 100k-item diff (20 MB of body) runs.
export async function measureHeavy(trees: GuardTrees, wanted: { spec: FigureSpec; rounds: number }[]) {
  const heavy = requests(wanted.map((w) => w.spec.id))
  const env = {
    LOG_LEVEL: 'warn',
    PLANS: JSON.stringify({ business: { max_json_bytes: 64 * MiB, compute_budget_ms: 60_000 } }),
  }
  const gateways: Partial<Record<Tree, GuardGateway>> = {}
  const agents = {
    base: new Agent({ keepAlive: true, maxSockets: 1 }),
    head: new Agent({ keepAlive: true, maxSockets: 1 }),
  }
  try {
    gateways.base = await startTreeGateway(trees.base, env)
    gateways.head = await startTreeGateway(trees.head, env)
    const all = [gateways.base!, gateways.head!]
    const send = async (tree: Tree, h: Heavy, id: string) => {
      const g = gateways[tree]!
      focus([g], all)
      try {
        return await postTimed(`${g.url}${h.path}`, {
          ca: g.ca,
          agent: agents[tree],
          headers: { ...h.headers, authorization: `Bearer ${g.key}` },
          body: h.body,
        })
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err)
        throw new Error(
          `${id}: the ${tree} tree's gateway (${trees[tree].label}): ${message}; ${gatewayState(g)}`,
        )
      }
    }
    const measured: Measured = {}
    for (const { spec, rounds } of wanted) {
      const h = heavy.get(spec.id)!
      for (const tree of ['base', 'head'] as const) {
        const first = await send(tree, h, spec.id)
        const wrong = h.check(first.status, first.body)
        if (wrong) throw new Error(`${spec.id}: the ${tree} tree's gateway (${trees[tree].label}) ${wrong}`)
      }
      const samples = { base: [] as number[], head: [] as number[] }
      for (let i = 0; i < rounds; i++) {
        for (const tree of roundOrder(i)) {
          const r = await send(tree, h, spec.id)
          if (r.status !== 200) {
            const text = r.body.subarray(0, 300).toString()
            throw new Error(
              `${spec.id}: the ${tree} tree's gateway (${trees[tree].label}) answered ${r.status}: ${text}`,
            )
          }
          samples[tree].push(h.value(r.ms))
        }
      }
      measured[spec.id] = samples
    }
    return measured
  } finally {
    agents.base.destroy()
    agents.head.destroy()
    await Promise.all(Object.values(gateways).map((g) => g.stop()))
  }
}
