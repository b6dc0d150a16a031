import { readFileSync } from 'node:fs'
import { Agent } from 'node:https'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { gunzipSync, gzipSync, zstdCompressSync, zstdDecompressSync } from 'node:zlib'
import { jsonDocument } from './json-format.ts'
import { median } from './lib/load.ts'
import { postTimed } from './lib/post-timed.ts'
import { startGateway } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'

const MiB = 1024 * 1024
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const SIZE = Number(process.env.BENCH_COMPRESS_BYTES ?? 16 * MiB)
// issue 40 set no figure; the wave's rule is "measured against the fastest in-process library": the
// endpoints, end to end over TLS, at least half as fast as Node's zlib in one process on the same bytes
const TARGET = 0.5

interface Case {
  label: string
  path: string
  body: Buffer
  // what the answer must turn back into (a compressed answer is decoded first), and the in-process
  // baseline that does the same work
  expected: Buffer
  decode: (answer: Buffer) => Buffer
  baseline: () => Buffer
}

const asIs = (answer: Buffer) => answer

function timed(fn: () => unknown): number {
  const started = performance.now()
  fn()
  return performance.now() - started
}

// SIZE bytes of bench/json-format.ts's API dump, compressed and decompressed with zstd (level 3) and gzip
// (level 6), the defaults every plan allows: POST /v1/compress/{algorithm} and /v1/decompress/{algorithm}
// through the gateway (business plan, TLS, HTTP/1.1) as raw bodies answered raw, one request at a time,
// against zlib's one-shot calls in process. Compression output is checked by decompressing it (its bytes
// may differ from the in-process call's only in framing choices), decompression's against the text.
async function measure() {
  const text = Buffer.from(jsonDocument(SIZE))
  const zstd = zstdCompressSync(text)
  const gzip = gzipSync(text)
  const cases: Case[] = [
    {
      label: 'compress zstd',
      path: '/v1/compress/zstd',
      body: text,
      expected: text,
      decode: zstdDecompressSync,
      baseline: () => zstdCompressSync(text),
    },
    {
      label: 'decompress zstd',
      path: '/v1/decompress/zstd',
      body: zstd,
      expected: text,
      decode: asIs,
      baseline: () => zstdDecompressSync(zstd),
    },
    {
      label: 'compress gzip',
      path: '/v1/compress/gzip',
      body: text,
      expected: text,
      decode: gunzipSync,
      baseline: () => gzipSync(text),
    },
    {
      label: 'decompress gzip',
      path: '/v1/decompress/gzip',
      body: gzip,
      expected: text,
      decode: asIs,
      baseline: () => gunzipSync(gzip),
    },
  ]
  const gateway = await startGateway({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' })
  const ca = readFileSync(join(/data dir:\s+(\S+)/.exec(gateway.output())![1]!, 'tls', 'cert.pem'))
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  try {
    const out: { label: string; baseline: number; ours: number; floor: number }[] = []
    // the transport's floor, in the same gateway: the same body hashed (POST /v1/hash/sha256, raw), so the
    // same bytes sent over TLS and read on a pool thread, a 64-character answer
    const floorOf = async (body: Buffer) => {
      const ms: number[] = []
      for (let i = 0; i <= ROUNDS; i++) {
        const r = await postTimed(`${gateway.url}/v1/hash/sha256`, {
          ca,
          agent,
          headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/octet-stream' },
          body,
        })
        if (r.status !== 200) throw new Error(`hash/sha256 answered ${r.status}`)
        if (i > 0) ms.push(r.ms)
      }
      return median(ms)
    }
    for (const c of cases) {
      const send = () =>
        postTimed(`${gateway.url}${c.path}`, {
          ca,
          agent,
          headers: {
            authorization: `Bearer ${gateway.key}`,
            'content-type': 'application/octet-stream',
            accept: 'application/octet-stream',
          },
          body: c.body,
        })
      const first = await send()
      const got = first.status === 200 ? c.decode(first.body) : undefined
      if (!got?.equals(c.expected)) {
        throw new Error(`${c.label} answered ${first.status}: ${first.body.subarray(0, 300).toString()}`)
      }
      const baseline: number[] = []
      const ours: number[] = []
      for (let i = 0; i < ROUNDS; i++) {
        baseline.push(timed(c.baseline))
        ours.push((await send()).ms)
      }
      out.push({
        label: c.label,
        baseline: median(baseline),
        ours: median(ours),
        floor: await floorOf(c.body),
      })
    }
    return out
  } finally {
    agent.destroy()
    await gateway.stop()
  }
}

export const toolboxCompress: Scenario = {
  name: 'toolbox-compress',
  title: `Compression endpoints: ${(SIZE / MiB).toFixed(0)} MiB of JSON text, zstd 3 and gzip 6 both ways, gateway vs zlib in process`,
  target: {
    ratio: TARGET,
    text: `each endpoint (raw both ways, end to end) ≥ ${TARGET}× Node's zlib one-shot call in process`,
  },
  async run() {
    const m = await measure()
    const rows = m.flatMap((c) => {
      const ratio = c.baseline / c.ours
      process.stdout.write(
        `  ${c.label}: gateway ${c.ours.toFixed(0)} ms = ${ratio.toFixed(2)}× zlib in process (${c.baseline.toFixed(0)} ms) — ` +
          `${ratio >= TARGET ? 'meets' : 'MISSES'} target (≥ ${TARGET}×); floor (the body hashed) ${c.floor.toFixed(0)} ms\n`,
      )
      return [
        { label: `${c.label}, zlib in process`, value: c.baseline, unit: 'ms' },
        { label: `${c.label}, gateway`, value: c.ours, unit: 'ms' },
        { label: `${c.label}, floor (the body hashed)`, value: c.floor, unit: 'ms' },
      ]
    })
    return { rows, ratio: Math.min(...m.map((c) => c.baseline / c.ours)) }
  },
}
