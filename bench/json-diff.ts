import { readFileSync } from 'node:fs'
import { request } from 'node:https'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { create, type Delta } from 'jsondiffpatch'
import { jsonDiff } from '../src/ops/json/diff/diff.ts'
import { deltaStats } from '../src/ops/json/diff/stats.ts'
import { applyJsonPatch } from '../src/ops/json/patch/patch.ts'
import { jsonEqual } from '../src/ops/json/value.ts'
import { median } from './lib/load.ts'
import { startGateway } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'

const MiB = 1024 * 1024
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SMALL = Number(process.env.BENCH_JSON_DIFF_ITEMS ?? 10_000)
const LARGE = Number(process.env.BENCH_JSON_DIFF_LARGE_ITEMS ?? 100_000)

interface Product {
  id: number
  sku: string
  name: string
  price: number
  tags: string[]
  stock: number
}

// about 105 bytes of JSON each, so 100k of them make 10 MB
function product(id: number): Product {
  const tags = id % 3 === 0 ? ['sale'] : ['new', 'featured']
  return {
    id,
    sku: `SKU-${String(id).padStart(6, '0')}`,
    name: `Product number ${id}`,
    price: (id % 9973) / 10,
    tags,
    stock: id % 50,
  }
}

// `count` products, and a version where 5% have a new price, a splice at 30% removes 1% and inserts
// 0.5% new ones, and a block of 1% moves from 60% to 10%. Both sides are separately parsed JSON.
export function documents(count: number): { left: Product[]; right: Product[] } {
  let state = 42
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state / 2147483648
  }
  const left = Array.from({ length: count }, (_, id) => product(id))
  const right = left.map((p) => ({ ...p }))
  for (let n = 0; n < count / 20; n++) right[Math.floor(random() * count)]!.price += 1
  right.splice(
    Math.floor(count * 0.3),
    count / 100,
    ...Array.from({ length: count / 200 }, (_, k) => product(count + k)),
  )
  const block = right.splice(Math.floor(count * 0.6), count / 100)
  right.splice(Math.floor(count * 0.1), 0, ...block)
  return { left: JSON.parse(JSON.stringify(left)), right: JSON.parse(JSON.stringify(right)) }
}

function timed<T>(fn: () => T): [T, number] {
  const started = performance.now()
  const value = fn()
  return [value, performance.now() - started]
}

// In-process: our operation (delta only, then with the verified RFC 6902 patch) against jsondiffpatch's
// own LCS with an objectHash, on the same documents in the same process.
function inProcess() {
  const { left, right } = documents(SMALL)
  const lcs = create({
    objectHash: (item) => String((item as Product).id),
    arrays: { detectMove: true, includeValueOnMove: false },
  })
  const ours = () => jsonDiff({ left, right, array_key: 'id', output: 'delta' })
  const both = () => jsonDiff({ left, right, array_key: 'id', output: 'both' })
  for (let i = 0; i < 3; i++) {
    ours()
    both()
  }
  const oursMs: number[] = []
  const bothMs: number[] = []
  for (let i = 0; i < 3 * ROUNDS; i++) {
    oursMs.push(timed(ours)[1])
    bothMs.push(timed(both)[1])
  }
  const lcsMs: number[] = []
  let theirs: Delta
  for (let i = 0; i < ROUNDS; i++) {
    const [delta, ms] = timed(() => lcs.diff(left, right))
    theirs = delta
    lcsMs.push(ms)
  }
  const stats = ours().stats
  if (JSON.stringify(stats) !== JSON.stringify(deltaStats(theirs!))) {
    throw new Error(
      `the diffs disagree: ours ${JSON.stringify(stats)}, jsondiffpatch ${JSON.stringify(deltaStats(theirs!))}`,
    )
  }
  return { ours: median(oursMs), both: median(bothMs), lcs: median(lcsMs) }
}

export function post(
  url: string,
  key: string,
  ca: Buffer,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    }
    const req = request(url, { method: 'POST', ca, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

export function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(match![1]) * 1024
}

// Through the gateway: POST /v1/json/diff, output "both", on LARGE products a side; the answer's patch
// is applied to `left` here, and the gateway process's peak RSS (VmHWM, threads included) is read
// from /proc. The business plan's 20 MiB body limit is raised for this one benchmark.
async function throughGateway() {
  const { left, right } = documents(LARGE)
  const body = JSON.stringify({
    left: { items: left },
    right: { items: right },
    array_key: 'id',
    output: 'both',
  })
  const gateway = await startGateway({
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    PLANS: JSON.stringify({ business: { max_json_bytes: 64 * MiB, compute_budget_ms: 60_000 } }),
  })
  try {
    const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
    const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'))
    const url = `${gateway.url}/v1/json/diff`
    const pid = gateway.child.pid!
    const idleRss = statusKb(pid, 'VmRSS')
    const times: number[] = []
    let firstPeakRss = 0
    // the first request warms the worker up and is checked; the others are timed
    for (let i = 0; i <= ROUNDS; i++) {
      const started = performance.now()
      const res = await post(url, gateway.key, ca, body)
      const elapsed = performance.now() - started
      if (res.status !== 200)
        throw new Error(`POST /v1/json/diff answered ${res.status}: ${res.text.slice(0, 500)}`)
      times.push(elapsed)
      if (i === 0) {
        firstPeakRss = statusKb(pid, 'VmHWM')
        const { json_patch } = JSON.parse(res.text).data
        const patched = applyJsonPatch({ document: { items: left }, patch: json_patch }).result
        if (!jsonEqual(patched, { items: right }))
          throw new Error('the returned json_patch does not turn left into right')
      }
    }
    return {
      ms: median(times.slice(1)),
      bodyBytes: Buffer.byteLength(body),
      idleRss,
      firstPeakRss,
      peakRss: statusKb(pid, 'VmHWM'),
    }
  } finally {
    await gateway.stop()
  }
}

export const jsonDiffScenario: Scenario = {
  name: 'json-diff',
  title: `JSON diff: ${SMALL / 1000}k-item arrays vs jsondiffpatch + objectHash; ${LARGE / 1000}k through the gateway`,
  target: { ratio: 50, text: `ours ≥ 50× faster than jsondiffpatch + objectHash on ${SMALL / 1000}k items` },
  async run() {
    const local = inProcess()
    const remote = await throughGateway()
    const rssRatio = remote.peakRss / remote.bodyBytes
    const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES')
    const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`
    const times = (bytes: number) => `${(bytes / remote.bodyBytes).toFixed(1)}×`
    process.stdout.write(
      `  gateway, ${LARGE / 1000}k items a side (${(remote.bodyBytes / MiB).toFixed(1)} MiB body): ` +
        `${remote.ms.toFixed(0)} ms per request — ${verdict(remote.ms <= 1500)} target (≤ 1500 ms)\n` +
        `  peak RSS ${mib(remote.peakRss)} = ${rssRatio.toFixed(1)}× the body — ${verdict(rssRatio <= 10)} ` +
        `target (≤ 10×); idle ${mib(remote.idleRss)} (${times(remote.idleRss)}), growth over idle: ` +
        `${times(remote.firstPeakRss - remote.idleRss)} after the first request, ` +
        `${times(remote.peakRss - remote.idleRss)} after ${ROUNDS + 1}\n`,
    )
    return {
      rows: [
        { label: `jsondiffpatch + objectHash`, value: local.lcs, unit: 'ms' },
        { label: 'ours, delta', value: local.ours, unit: 'ms' },
        { label: 'ours, delta + verified patch', value: local.both, unit: 'ms' },
        { label: `gateway ${LARGE / 1000}k, output both`, value: remote.ms, unit: 'ms' },
        { label: 'gateway peak RSS', value: remote.peakRss / MiB, unit: 'MiB' },
      ],
      ratio: local.lcs / local.ours,
    }
  },
}
