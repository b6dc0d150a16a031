import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:https'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout } from 'node:timers/promises'
import { create, type Delta } from 'jsondiffpatch'
import { jsonDiff } from '../src/ops/json/diff/diff.ts'
import { deltaStats } from '../src/ops/json/diff/stats.ts'
import { applyJsonPatch } from '../src/ops/json/patch/patch.ts'
import { jsonEqual } from '../src/ops/json/value.ts'
import { type BaseTree, prepareBaseTree } from './lib/base-tree.ts'
import { median } from './lib/load.ts'
import { cpuMicros } from './lib/proc-cpu.ts'
import { type Running, startGateway, startNode, waitReady } from './lib/processes.ts'
import type { Scenario, ScenarioRow } from './lib/scenario.ts'

const MiB = 1024 * 1024
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
// Requests each gateway serves, after its checked one, before the measured ones ("warm requests"): V8
// is still compiling and marking through a gateway's first ~8 requests of each size (10k: 44-76 ms each
// against ~30 from the ninth on), which the in-process figures never see (they run after warm-up calls).
// Their median is reported beside the warm one as the early figure.
const WARMUP = Number(process.env.BENCH_JSON_DIFF_WARMUP ?? 3 * ROUNDS)
const SMALL = Number(process.env.BENCH_JSON_DIFF_ITEMS ?? 10_000)
const LARGE = Number(process.env.BENCH_JSON_DIFF_LARGE_ITEMS ?? 100_000)
// Issue 24's targets: the 10k-item request end to end ≥ 50× jsondiffpatch in process, the 100k-item one
// (9.8 MB a side, sent with it) within 1 s.
const SMALL_TARGET = 50
const LARGE_TARGET_MS = 1_000
// The tree the issue's figures start from (141 ms at 10k, 1.27 s at 100k, measured beside 00fb065's
// 380-462 ms and 3.6-4.3 s): run beside this one unless BENCH_BASE_REF names another ("none": no base).
export const REFERENCE_REF = '16384ed'
// After the LARGE rounds, PACED measured requests each, as a client sends them that waits PACE_MS after
// each answer (not back to back): each follows one request of its side by PACE_MS, and the sides take
// turns. Its figures: its time end to end, and its gateway's process CPU (/proc, all threads) from its send
// until PACE_MS after its answer, so what the gateway does between a client's requests (its collections)
// counts, as does a heap regrown after one.
const PACED = Number(process.env.BENCH_JSON_DIFF_PACED ?? 3)
const PACE_MS = 1_500

export interface Item {
  id: number
  name: string
  price: number
  tags: string[]
  nested: { x: number; y: number }
}

// `count` items {id, name, price, tags[3], nested{x, y}} (about 98 bytes of JSON each: 100k make 9.8 MB),
// and a version where 5% have a new price, 5 items are deleted and 5 inserted at random places, and a
// block of 1% moves from 60% to 10%. Both sides are separately parsed JSON. Deletions and insertions
// spread over the array leave jsondiffpatch little to trim before its LCS, as real edits do.
export function documents(count: number): { left: Item[]; right: Item[] } {
  let state = 42
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state / 2147483648
  }
  const item = (id: number): Item => ({
    id,
    name: `item ${id}`,
    price: Math.round(random() * 100_000) / 100,
    tags: [`t${id % 7}`, `t${id % 11}`, `t${id % 13}`],
    nested: { x: id % 1000, y: id % 17 },
  })
  const left = Array.from({ length: count }, (_, id) => item(id))
  const right = left.map((p) => ({ ...p, tags: [...p.tags], nested: { ...p.nested } }))
  for (let n = 0; n < count / 20; n++)
    right[Math.floor(random() * count)]!.price = Math.round(random() * 100_000) / 100
  for (let k = 0; k < 5; k++) right.splice(Math.floor(random() * right.length), 1)
  for (let k = 0; k < 5; k++) right.splice(Math.floor(random() * right.length), 0, item(count + k))
  const block = right.splice(Math.floor(count * 0.6), Math.max(1, Math.floor(count / 100)))
  right.splice(Math.floor(count * 0.1), 0, ...block)
  return { left: JSON.parse(JSON.stringify(left)), right: JSON.parse(JSON.stringify(right)) }
}

export function diffBody(left: unknown, right: unknown): string {
  return JSON.stringify({ left: { items: left }, right: { items: right }, array_key: 'id', output: 'both' })
}

function timed<T>(fn: () => T): [T, number] {
  const started = performance.now()
  const value = fn()
  return [value, performance.now() - started]
}

// In process, on the SMALL documents: our operation (delta only, then with the verified RFC 6902 patch)
// and jsondiffpatch's LCS with an objectHash, whose deltas must agree.
function inProcess() {
  const { left, right } = documents(SMALL)
  const lcs = create({
    objectHash: (item) => String((item as Item).id),
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
  body: string | Buffer,
  agent?: Agent,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    }
    const req = request(url, { method: 'POST', ca, headers, agent }, (res) => {
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

// The base tree these benches compare with: BENCH_BASE_REF, else the reference the issue starts from.
export async function baseTree(): Promise<BaseTree | undefined> {
  const ref = process.env.BENCH_BASE_REF || process.env.BENCH_BASE_COMMIT || REFERENCE_REF
  return ref === 'none' ? undefined : prepareBaseTree(ref)
}

interface Side {
  // `gateway ...` for a gateway, `floor ...` for the floor: the start of its rows' labels
  label: string
  server: Running
  key: string
  ca: Buffer
  // runs this tree's code (its gateway, the floor): its answers are checked and its memory is read (the
  // base tree's answer may have another shape)
  thisTree: boolean
  // resident memory (/proc, all threads): at rest, after the first LARGE request, after the back-to-back
  // LARGE rounds (peaks: VmHWM)
  rss: { idle: number; first: number; peak: number }
  agent: Agent
  ms: Record<number, number[]>
  early: Record<number, number[]>
  paced: { ms: number[]; cpuMs: number[] }
}

// Through the gateway (business plan, HTTPS/1.1, one connection): POST /v1/json/diff with output "both"
// on SMALL and LARGE items a side, the body sent with each request (its time is part of the figure). This
// tree's gateway and the base tree's take turns in blocks of ROUNDS consecutive requests (head, base,
// head, base), after one checked request each (the first answer's patch is applied to `left` here) and
// WARMUP warm-up requests each, taking turns the same way (their times are the early figure). Each
// block follows the other side's: with head, base, base, head the base ran six requests in a row and the
// head's blocks each came after a pause, and identical trees measured 49-50 against 42-43 ms (10k) and
// 405 against 367 ms (100k) in two runs; alternating, 46-48 against 46-50 and 404-415 against 427-433.
// The plan's 20 MiB body limit is raised for the LARGE body.
// The floor takes its turns the same way: Node's own HTTPS server running this tree's diff on its event
// loop by a pool task's path (bench/baselines/bare-diff.ts, warmed up as a pool thread is), so the same
// run says what the diff itself costs, in time and in memory grown over a process at rest, without the
// gateway (its pool, its memory policy, workers/memory.ts).
async function throughGateways() {
  const base = await baseTree()
  const sides: Side[] = []
  try {
    const env = {
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      PLANS: JSON.stringify({ business: { max_json_bytes: 64 * MiB, compute_budget_ms: 60_000 } }),
    }
    const add = (label: string, server: Running, key: string, ca: Buffer, thisTree: boolean) =>
      sides.push({
        label,
        server,
        key,
        ca,
        thisTree,
        rss: { idle: 0, first: 0, peak: 0 },
        agent: new Agent({ keepAlive: true, maxSockets: 1 }),
        ms: {},
        early: {},
        paced: { ms: [], cpuMs: [] },
      })
    const start = async (label: string, tree?: BaseTree) => {
      const gateway = await startGateway(env, tree)
      const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
      const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'))
      add(`gateway, ${label}`, gateway, gateway.key, ca, tree === undefined)
      return dataDir
    }
    const dataDir = await start('this tree')
    if (base) await start(base.commit.slice(0, 7), base)
    const tls = {
      TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'),
      TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem'),
    }
    add(
      "floor, bare Node running this tree's diff",
      await startNode('bench/baselines/bare-diff.ts', tls, /READY (https:\/\/\S+)/),
      '',
      sides[0]!.ca,
      true,
    )
    // idle is a server ready and at rest: a gateway's threads warm and their warm-up collected. Read at its
    // banner instead, it caught them mid warm-up while the base tree's gateway started beside it (pool
    // threads run under SCHED_IDLE and wait for every other thread): 268-286 MiB, against 216-220 at /readyz
    for (const side of sides) {
      if (!side.thisTree) continue
      await waitReady(side.server.url, side.ca)
      side.rss.idle = statusKb(side.server.child.pid!, 'VmRSS')
    }
    let largeBytes = 0
    for (const count of [SMALL, LARGE]) {
      const { left, right } = documents(count)
      const body = Buffer.from(diffBody(left, right))
      if (count === LARGE) largeBytes = body.length
      const send = async (side: Side) => {
        const started = performance.now()
        const res = await post(`${side.server.url}/v1/json/diff`, side.key, side.ca, body, side.agent)
        const ms = performance.now() - started
        if (res.status !== 200)
          throw new Error(
            `${side.label}: POST /v1/json/diff answered ${res.status}: ${res.text.slice(0, 300)}`,
          )
        return { ms, text: res.text }
      }
      for (const side of sides) {
        const { text } = await send(side)
        if (side.thisTree) {
          const { json_patch } = JSON.parse(text).data
          const patched = applyJsonPatch({ document: { items: left }, patch: json_patch }).result
          if (!jsonEqual(patched, { items: right }))
            throw new Error(`${side.label}: the returned json_patch does not turn left into right`)
        }
        if (count === LARGE && side.thisTree) side.rss.first = statusKb(side.server.child.pid!, 'VmHWM')
      }
      for (const side of sides) {
        side.ms[count] = []
        side.early[count] = []
      }
      for (let sent = 0; sent < WARMUP; sent += ROUNDS) {
        for (const side of sides) {
          for (let i = 0; i < Math.min(ROUNDS, WARMUP - sent); i++)
            side.early[count]!.push((await send(side)).ms)
        }
      }
      for (const side of [...sides, ...sides]) {
        for (let i = 0; i < ROUNDS; i++) side.ms[count]!.push((await send(side)).ms)
      }
      if (count === LARGE) {
        for (const side of sides) if (side.thisTree) side.rss.peak = statusKb(side.server.child.pid!, 'VmHWM')
        for (let i = 0; i < PACED; i++) {
          for (const side of sides) {
            // one request PACE_MS after the side's previous answer, then the measured one PACE_MS after it
            await setTimeout(PACE_MS)
            await send(side)
            await setTimeout(PACE_MS)
            const cpu = cpuMicros(side.server.child.pid)!
            side.paced.ms.push((await send(side)).ms)
            await setTimeout(PACE_MS)
            side.paced.cpuMs.push((cpuMicros(side.server.child.pid)! - cpu) / 1000)
          }
        }
      }
    }
    return { sides, largeBytes }
  } finally {
    for (const side of sides) {
      side.agent.destroy()
      await side.server.stop()
    }
    await base?.remove()
  }
}

type Measured = { local: ReturnType<typeof inProcess>; remote: Awaited<ReturnType<typeof throughGateways>> }
let measured: Promise<Measured> | undefined

// One measurement for both scenarios below (they share the gateways and the rounds).
function measure(): Promise<Measured> {
  measured ??= (async () => ({ local: inProcess(), remote: await throughGateways() }))()
  return measured
}

const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES')

function gatewayRows(m: Measured, count: number): ScenarioRow[] {
  return m.remote.sides.map((side) => ({
    label: `${side.label}, ${count / 1000}k`,
    value: median(side.ms[count]!),
    unit: 'ms',
  }))
}

// The warm-up requests' median, per side: what a gateway's first requests of this size cost.
function earlyRows(m: Measured, count: number): ScenarioRow[] {
  if (WARMUP === 0) return []
  return m.remote.sides.map((side) => ({
    label: `${side.label}, ${count / 1000}k, early (requests 2-${WARMUP + 1})`,
    value: median(side.early[count]!),
    unit: 'ms',
  }))
}

// The paced requests' medians, per side: end to end, and the gateway's CPU per request.
function pacedRows(m: Measured): ScenarioRow[] {
  if (PACED === 0) return []
  const label = (side: Side) => `${side.label}, ${LARGE / 1000}k, ${PACE_MS / 1000} s apart`
  return m.remote.sides.flatMap((side) => [
    { label: label(side), value: median(side.paced.ms), unit: 'ms' },
    { label: `${label(side)}, CPU per request`, value: median(side.paced.cpuMs), unit: 'ms' },
  ])
}

function printEarly(rows: ScenarioRow[]): void {
  for (const row of rows) process.stdout.write(`  ${row.label}: ${row.value.toFixed(0)} ms (no target)\n`)
}

export const jsonDiffScenario: Scenario = {
  name: 'json-diff',
  title: `JSON diff: ${SMALL / 1000}k items a side end to end through the gateway vs jsondiffpatch + objectHash in process`,
  target: {
    ratio: SMALL_TARGET,
    text: `the gateway's ${SMALL / 1000}k-item diff, end to end, ≥ ${SMALL_TARGET}× faster than jsondiffpatch + objectHash in process`,
  },
  async run() {
    const m = await measure()
    const rows = gatewayRows(m, SMALL)
    const early = earlyRows(m, SMALL)
    for (const row of rows) {
      const ratio = m.local.lcs / row.value
      process.stdout.write(
        `  ${row.label}: ${row.value.toFixed(0)} ms end to end = ${ratio.toFixed(1)}× jsondiffpatch ` +
          `(${m.local.lcs.toFixed(0)} ms) — ${verdict(ratio >= SMALL_TARGET)} target (≥ ${SMALL_TARGET}×)\n`,
      )
    }
    printEarly(early)
    return {
      rows: [
        { label: 'jsondiffpatch + objectHash', value: m.local.lcs, unit: 'ms' },
        { label: 'ours in process, delta', value: m.local.ours, unit: 'ms' },
        { label: 'ours in process, both', value: m.local.both, unit: 'ms' },
        ...rows,
        ...early,
      ],
      ratio: m.local.lcs / rows[0]!.value,
    }
  },
}

export const jsonDiffLargeScenario: Scenario = {
  name: 'json-diff-100k',
  title: `JSON diff: ${LARGE / 1000}k items a side end to end through the gateway, bodies sent with each request`,
  target: {
    ratio: 1,
    text: `${LARGE / 1000}k items a side end to end within ${LARGE_TARGET_MS / 1000} s (ratio: ${LARGE_TARGET_MS} ms ÷ ours)`,
  },
  async run() {
    const m = await measure()
    const { remote } = m
    const rows = gatewayRows(m, LARGE)
    const early = earlyRows(m, LARGE)
    for (const row of rows) {
      process.stdout.write(
        `  ${row.label}: ${row.value.toFixed(0)} ms end to end (${(remote.largeBytes / MiB).toFixed(1)} MiB body) — ` +
          `${verdict(row.value <= LARGE_TARGET_MS)} target (≤ ${LARGE_TARGET_MS} ms)\n`,
      )
    }
    printEarly(early)
    const paced = pacedRows(m)
    for (const row of paced)
      process.stdout.write(`  ${row.label}: ${row.value.toFixed(0)} ${row.unit} (no target)\n`)
    const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`
    const times = (bytes: number) => `${(bytes / remote.largeBytes).toFixed(1)}×`
    // issue 41's bound: the gateway's peak over its idle ≤ 10× the body, after back-to-back requests; the
    // floor's, over the same requests in the same run, is what the diff grows a plain Node process by
    for (const side of remote.sides) {
      if (!side.thisTree) continue
      const growth = (side.rss.peak - side.rss.idle) / remote.largeBytes
      process.stdout.write(
        `  ${side.label}: idle ${mib(side.rss.idle)}, peak ${mib(side.rss.peak)}; growth over idle ` +
          `${times(side.rss.first - side.rss.idle)} the body after the first request, ${growth.toFixed(1)}× after ` +
          `the back-to-back rounds (read before the paced requests)` +
          (side === remote.sides[0] ? ` — ${verdict(growth <= 10)} target (≤ 10×)\n` : '\n'),
      )
    }
    return {
      rows: [
        ...rows,
        ...early,
        ...paced,
        { label: 'body', value: remote.largeBytes / MiB, unit: 'MiB' },
        ...remote.sides
          .filter((side) => side.thisTree)
          .map((side) => ({
            label: `${side.label}, growth over idle`,
            value: (side.rss.peak - side.rss.idle) / remote.largeBytes,
            unit: '× the body',
          })),
      ],
      ratio: LARGE_TARGET_MS / rows[0]!.value,
    }
  },
}
