import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { request } from 'node:https'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { type Running, startGateway, startNode, waitReady } from './lib/processes.ts'
import type { Scenario, ScenarioRow } from './lib/scenario.ts'

const MiB = 1024 * 1024
const SIZE = Number(process.env.BENCH_STREAM_BYTES ?? 256 * MiB)
const WARM = 64 * MiB
// clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux)
const TICKS = 100

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) * 1024
}

// user + system CPU time of a whole process (every thread: the event loop and the pool's), in ms
function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS
}

// A body of about `total` bytes: head, 1 MiB pieces, tail (the same bytes for every server).
interface Body {
  head: Buffer
  piece: Buffer
  count: number
  tail: Buffer
  bytes: number
}

function hashBody(total: number): Body {
  const piece = Buffer.alloc(MiB)
  for (let i = 0; i < piece.length; i++) piece[i] = (i * 31 + 7) & 0xff
  const count = Math.ceil(total / MiB)
  return { head: Buffer.alloc(0), piece, count, tail: Buffer.alloc(0), bytes: count * MiB }
}

// Pretty-printed records, the kind of document one minifies.
function jsonBody(total: number): Body {
  const record =
    '  {\n    "id": 12345678901234567890,\n    "name": "caf\\u00e9 \\"q\\"",\n    "tags": [ "a", "b" ],\n' +
    '    "ok": true,\n    "none": null,\n    "x": -1.5e-7\n  },\n'
  const piece = Buffer.from(record.repeat(Math.floor(MiB / record.length)))
  const count = Math.ceil(total / piece.length)
  const head = Buffer.from('[\n')
  const tail = Buffer.from('  null\n]\n')
  return { head, piece, count, tail, bytes: head.length + count * piece.length + tail.length }
}

interface Answer {
  ms: number
  status: number
  bytes: number
  sha256: string
  // the first KiB (a JSON envelope is whole)
  head: string
}

// POSTs the body as application/octet-stream, written with backpressure, Content-Length declared; the
// answer is hashed as it arrives.
function upload(url: string, key: string, ca: Buffer, body: Body, accept?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const req = request(url, {
      method: 'POST',
      ca,
      agent: false,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/octet-stream',
        'content-length': String(body.bytes),
        ...(accept ? { accept } : {}),
      },
    })
    req.on('response', (res) => {
      const hash = createHash('sha256')
      let bytes = 0
      let head = ''
      res.on('data', (c: Buffer) => {
        hash.update(c)
        bytes += c.length
        if (head.length < 1024) head += c.subarray(0, 1024).toString()
      })
      res.on('end', () =>
        resolve({
          ms: performance.now() - started,
          status: res.statusCode ?? 0,
          bytes,
          sha256: hash.digest('hex'),
          head,
        }),
      )
      res.on('error', reject)
    })
    req.on('error', reject)
    let sent = 0
    req.write(body.head)
    const pump = () => {
      while (sent < body.count) {
        sent++
        if (!req.write(body.piece)) return void req.once('drain', pump)
      }
      req.end(body.tail)
    }
    pump()
  })
}

export interface Measured {
  rate: number
  cpuPerMiB: number
  rssGrowth: number
  answer: Answer
}

// One timed upload after a warm-up one: throughput, the server's CPU time per MiB (every thread), and its
// peak RSS above what it held before (sampled every 10 ms).
async function measure(
  pid: number,
  warm: () => Promise<Answer>,
  timed: () => Promise<Answer>,
  bytes: number,
) {
  const warmed = await warm()
  if (warmed.status !== 200) throw new Error(`warm-up answered ${warmed.status}`)
  const baseline = rssOf(pid)
  let peak = baseline
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid))
  }, 10)
  const cpuBefore = cpuOf(pid)
  const answer = await timed()
  const cpu = cpuOf(pid) - cpuBefore
  clearInterval(sampler)
  peak = Math.max(peak, rssOf(pid))
  if (answer.status !== 200) throw new Error(`answered ${answer.status}`)
  const mib = bytes / MiB
  return { rate: mib / (answer.ms / 1000), cpuPerMiB: cpu / mib, rssGrowth: (peak - baseline) / MiB, answer }
}

const CASES = [
  { name: 'sha256', path: '/v1/hash/sha256', bare: 'bench/baselines/bare-stream-hash.ts', body: hashBody },
  {
    name: 'json/format minify',
    path: '/v1/json/format?mode=minify',
    bare: 'bench/baselines/bare-stream-minify.ts',
    body: jsonBody,
    accept: 'application/octet-stream',
  },
] as const

export interface StreamComparison {
  name: string
  ours: Measured
  bare: Measured
}

// Each case's upload of `size` bytes (after one of `warm` bytes) through the gateway and through its bare
// Node HTTPS server, in the same run; throws if the answers differ.
export async function compareStreams(size: number, warm: number): Promise<StreamComparison[]> {
  const gateway = await startGateway({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' })
  const out: StreamComparison[] = []
  try {
    const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
    const tls = {
      TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'),
      TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem'),
    }
    const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'))
    // pool threads warm up at boot (workers/warmup.ts): measure the gateway once they have
    await waitReady(gateway.url, ca)
    for (const c of CASES) {
      const body = c.body(size)
      const warmBody = c.body(warm)
      const accept = 'accept' in c ? c.accept : undefined
      const ours = await measure(
        gateway.child.pid!,
        () => upload(`${gateway.url}${c.path}`, gateway.key, ca, warmBody, accept),
        () => upload(`${gateway.url}${c.path}`, gateway.key, ca, body, accept),
        body.bytes,
      )
      const bare: Running = await startNode(c.bare, tls, /READY (https:\/\/\S+)/)
      let floor: Measured
      try {
        floor = await measure(
          bare.child.pid!,
          () => upload(bare.url, gateway.key, ca, warmBody, accept),
          () => upload(bare.url, gateway.key, ca, body, accept),
          body.bytes,
        )
      } finally {
        await bare.stop()
      }
      // the same answer: the digest in the envelope, or the minified bytes
      const same =
        c.name === 'sha256'
          ? JSON.parse(ours.answer.head).data.digest === JSON.parse(floor.answer.head).data.digest
          : ours.answer.sha256 === floor.answer.sha256 && ours.answer.bytes === floor.answer.bytes
      if (!same) throw new Error(`${c.name}: the gateway's answer differs from the bare server's`)
      out.push({ name: c.name, ours, bare: floor })
    }
  } finally {
    await gateway.stop()
  }
  return out
}

// Raw sha256 and raw json/format minify through the gateway (TLS, HTTP/1.1, business plan: the work runs on
// a paid-pool thread, the event loop only moves bytes) against a bare Node HTTPS server doing the same work
// on its event loop with the same code, on the same upload, in the same run. CPU time per MiB is the
// server process's (all threads) from /proc.
export const streamScenario: Scenario = {
  name: 'stream',
  title: `Stream: ${SIZE / MiB} MiB raw sha256 and json/format minify, gateway (pool) vs bare Node HTTPS server`,
  target: { ratio: 0.9, text: 'gateway ≥ 0.9× the bare server for both, gateway RSS growth < 64 MiB' },
  async run() {
    const rows: ScenarioRow[] = []
    let ratio = Number.POSITIVE_INFINITY
    let worstGrowth = 0
    for (const { name, ours, bare: floor } of await compareStreams(SIZE, WARM)) {
      worstGrowth = Math.max(worstGrowth, ours.rssGrowth)
      ratio = Math.min(ratio, ours.rate / floor.rate)
      rows.push(
        { label: `gateway ${name}`, value: ours.rate, unit: 'MiB/s' },
        { label: `  gateway CPU per MiB`, value: ours.cpuPerMiB, unit: 'ms' },
        { label: `bare Node HTTPS ${name}`, value: floor.rate, unit: 'MiB/s' },
        { label: `  bare CPU per MiB`, value: floor.cpuPerMiB, unit: 'ms' },
        { label: `  gateway ÷ bare`, value: ours.rate / floor.rate, unit: '×' },
        { label: `  gateway RSS growth`, value: ours.rssGrowth, unit: 'MiB' },
      )
    }
    process.stdout.write(
      `  gateway RSS growth at most ${worstGrowth.toFixed(1)} MiB — ` +
        `${worstGrowth < 64 ? 'meets' : 'MISSES'} target (< 64 MiB)\n`,
    )
    // an RSS over its target fails the scenario whatever the throughput
    return { rows, ratio: worstGrowth < 64 ? ratio : 0 }
  },
}
