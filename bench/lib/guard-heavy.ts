import { createHash } from 'node:crypto'
import { Agent, get } from 'node:https'
import { zstdDecompressSync } from 'node:zlib'
import { JSONPathEnvironment } from 'json-p3'
import { parse as parseYaml } from 'yaml'
import { applyJsonPatch } from '../../src/ops/json/patch/patch.ts'
import { jsonEqual } from '../../src/ops/json/value.ts'
import { yamlDocument } from '../data-convert.ts'
import { jsonDocument } from '../json-format.ts'
import { type Measured, roundOrder, type Tree } from './guard-compare.ts'
import { itemDocuments } from './guard-documents.ts'
import type { FigureSpec } from './guard-figures.ts'
import { focus, type GuardGateway, type GuardTrees, gatewayState, startTreeGateway } from './guard-trees.ts'
import { postTimed } from './post-timed.ts'
import { catalogue, QUERIES } from './query-documents.ts'
import { ORDER_SCHEMA, orderInstances } from './validate-documents.ts'

const MiB = 1024 * 1024
const HASHED_BYTES = 64 * MiB

// One heavy request, as a client sends it, and the check its first answer must pass (a fast wrong answer
// is no figure). `value` turns the request's time into the figure (ms, or MiB/s for a throughput).
export interface Heavy {
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

// password/hash at the default policy (argon2id, OWASP's parameters): one hash, its memory and passes
function argon2id(): Heavy {
  return {
    path: '/v1/password/hash',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ password: 'correct horse battery staple' })),
    check(status, text) {
      if (status !== 200) return `answered ${status}: ${text.subarray(0, 300).toString()}`
      return /^\$argon2id\$v=19\$/.test(JSON.parse(text.toString()).data.hash)
        ? undefined
        : 'not an argon2id hash'
    },
    value: (ms) => ms,
  }
}

// json/validate: bench/json-structured.ts's order schema against 1,000 orders (one in ten invalid), the
// schema compiled once
function validate(): Heavy {
  const instances = orderInstances(1000)
  return {
    path: '/v1/json/validate',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ schema: ORDER_SCHEMA, instances })),
    check(status, text) {
      if (status !== 200) return `answered ${status}: ${text.subarray(0, 300).toString()}`
      const { data } = JSON.parse(text.toString())
      return data.valid === false && Array.isArray(data.results) && data.results.length === 1000
        ? undefined
        : `not 1,000 results with invalid ones: ${text.subarray(0, 300).toString()}`
    },
    value: (ms) => ms,
  }
}

// json/query: bench/json-structured.ts's filter over its catalogue at 7k products (about 2 MB); the values
// must be json-p3's
function query(): Heavy {
  const document = catalogue(7_000)
  const path = QUERIES[0]!
  const text = JSON.stringify({ document, path })
  const expected = new JSONPathEnvironment().query(path, JSON.parse(text).document).values()
  return {
    path: '/v1/json/query',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(text),
    check(status, text) {
      if (status !== 200) return `answered ${status}: ${text.subarray(0, 300).toString()}`
      const { data } = JSON.parse(text.toString())
      return expected.length > 0 && JSON.stringify(data.values) === JSON.stringify(expected)
        ? undefined
        : `not json-p3's ${expected.length} values: ${text.subarray(0, 300).toString()}`
    },
    value: (ms) => ms,
  }
}

// data/convert YAML → JSON of 2 MiB of manifests (bench/data-convert.ts's document), raw both ways
function convertYaml(): Heavy {
  const text = yamlDocument(2 * MiB)
  const expected = parseYaml(text)
  return {
    path: '/v1/data/convert?from=yaml&to=json',
    headers: { 'content-type': 'application/octet-stream', accept: 'application/octet-stream' },
    body: Buffer.from(text),
    check(status, body) {
      if (status !== 200) return `answered ${status}: ${body.subarray(0, 300).toString()}`
      return JSON.stringify(JSON.parse(body.toString())) === JSON.stringify(expected)
        ? undefined
        : "the JSON differs from the yaml package's reading"
    },
    value: (ms) => ms,
  }
}

// compress/zstd of 16 MiB of JSON text at the default level, raw both ways: throughput
function zstd(): Heavy {
  const body = Buffer.from(jsonDocument(16 * MiB))
  return {
    path: '/v1/compress/zstd',
    headers: { 'content-type': 'application/octet-stream', accept: 'application/octet-stream' },
    body,
    check(status, out) {
      if (status !== 200) return `answered ${status}: ${out.subarray(0, 300).toString()}`
      return zstdDecompressSync(out).equals(body) ? undefined : 'the frame does not decompress to the body'
    },
    value: (ms) => body.length / MiB / (ms / 1000),
  }
}

// The requests of the wanted figures, built once: the diff's documents of bench/lib/guard-documents.ts
// (issue 23's items, with bench/json-diff.ts's edits; its flat products do not show the regression the
// issue measured, these do: 2.1× at 10k items against 16384ed), and bench/json-format.ts's pretty API dump
// (15 MiB of estimate, 14.6 MiB of text).
export function requests(ids: string[]): Map<string, Heavy> {
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
    else if (id === 'argon2id-hash') out.set(id, argon2id())
    else if (id === 'validate-1k') out.set(id, validate())
    else if (id === 'query-2m') out.set(id, query())
    else if (id === 'convert-yaml') out.set(id, convertYaml())
    else if (id === 'zstd-raw') out.set(id, zstd())
    else throw new Error(`measureHeavy: no such figure ${id}`)
  }
  return out
}

// The paths a tree's gateway serves, from its OpenAPI document (a route it lacks may answer 404, or 415
// first where an older gateway checks the media type before the route), `{param}` matching a segment.
function documentedPaths(g: GuardGateway): Promise<RegExp[]> {
  return new Promise((resolve, reject) => {
    get(`${g.url}/v1/openapi.json`, { ca: g.ca }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        try {
          const doc = JSON.parse(Buffer.concat(chunks).toString()) as { paths?: Record<string, unknown> }
          const segment = (part: string) =>
            part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')
          const pattern = (path: string) => path.split('/').map(segment).join('/')
          resolve(Object.keys(doc.paths ?? {}).map((path) => new RegExp(`^${pattern(path)}$`)))
        } catch (err) {
          reject(err)
        }
      })
      res.on('error', reject)
    }).on('error', reject)
  })
}

// diff-10k, diff-100k, minify-raw, minify-input, sha256-raw, and this wave's heavy ops (argon2id-hash,
// validate-1k, query-2m, convert-yaml, zstd-raw): one request at a time (a latency figure),
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
    const basePaths = await documentedPaths(gateways.base!)
    for (const { spec, rounds } of wanted) {
      const h = heavy.get(spec.id)!
      // a figure of an op the base tree does not have yet (its OpenAPI document has no such path) is
      // measured on head alone, and reported as new (guard-compare.ts)
      const path = h.path.split('?')[0]!
      const baseLacks = !basePaths.some((route) => route.test(path))
      for (const tree of ['base', 'head'] as const) {
        if (tree === 'base' && baseLacks) continue
        const first = await send(tree, h, spec.id)
        const wrong = h.check(first.status, first.body)
        if (wrong) throw new Error(`${spec.id}: the ${tree} tree's gateway (${trees[tree].label}) ${wrong}`)
      }
      const samples = { base: [] as number[], head: [] as number[], ...(baseLacks ? { baseLacks } : {}) }
      for (let i = 0; i < rounds; i++) {
        for (const tree of roundOrder(i)) {
          if (tree === 'base' && baseLacks) continue
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
