import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { request } from 'node:https'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { startGateway, startNode } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'

const MiB = 1024 * 1024
const SIZE = Number(process.env.BENCH_STREAM_BYTES ?? 512 * MiB)
const CHUNK = MiB

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) * 1024
}

function pattern(): Buffer {
  const chunk = Buffer.alloc(CHUNK)
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31 + 7) & 0xff
  return chunk
}

// In process: sha256 of the same bytes, fed in the same chunks.
function inProcess(chunk: Buffer, total: number): { ms: number; digest: string } {
  const started = performance.now()
  const hash = createHash('sha256')
  for (let sent = 0; sent < total; sent += chunk.length) hash.update(chunk)
  const digest = hash.digest('hex')
  return { ms: performance.now() - started, digest }
}

// POST /v1/hash/sha256 with a raw body of `total` bytes written with backpressure, Content-Length declared.
function upload(
  url: string,
  key: string,
  ca: Buffer,
  chunk: Buffer,
  total: number,
): Promise<{ ms: number; body: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const req = request(url, {
      method: 'POST',
      ca,
      agent: false,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/octet-stream',
        'content-length': String(total),
      },
    })
    req.on('response', (res) => {
      let body = ''
      res.on('data', (c: Buffer) => {
        body += c.toString()
      })
      res.on('end', () => resolve({ ms: performance.now() - started, body }))
      res.on('error', reject)
    })
    req.on('error', reject)
    let sent = 0
    const pump = () => {
      while (sent < total) {
        sent += chunk.length
        if (!req.write(chunk)) return void req.once('drain', pump)
      }
      req.end()
    }
    pump()
  })
}

// The same upload to Node's bare HTTPS server hashing the body (bench/baselines/bare-stream-hash.ts): the
// ceiling any Node server reaches through TLS on this machine, so the gateway's own cost shows beside it.
async function bareNodeRate(dataDir: string, key: string, ca: Buffer, chunk: Buffer, digest: string) {
  const bare = await startNode(
    'bench/baselines/bare-stream-hash.ts',
    { TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'), TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem') },
    /READY (https:\/\/\S+)/,
  )
  try {
    await upload(bare.url, key, ca, chunk, 64 * MiB)
    const timed = await upload(bare.url, key, ca, chunk, SIZE)
    if (JSON.parse(timed.body).data?.digest !== digest) throw new Error('the bare server digest differs')
    return SIZE / MiB / (timed.ms / 1000)
  } finally {
    await bare.stop()
  }
}

// sha256 of a 512 MiB octet-stream body through the gateway (TLS, HTTP/1.1, business plan, whose binary
// limit is 1 GiB) against hashing the same bytes in process; the gateway's RSS is sampled from /proc
// every 10 ms during the timed upload, after a warm-up upload of 64 MiB.
export const streamScenario: Scenario = {
  name: 'stream',
  title: `Stream: ${SIZE / MiB} MiB octet-stream sha256 through the gateway vs in-process crypto`,
  target: { ratio: 0.4, text: 'gateway ≥ 0.4× in-process throughput, gateway RSS growth < 64 MiB' },
  async run() {
    const chunk = pattern()
    const local = inProcess(chunk, SIZE)
    const gateway = await startGateway({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' })
    try {
      const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
      const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'))
      const url = `${gateway.url}/v1/hash/sha256`
      const pid = gateway.child.pid!
      await upload(url, gateway.key, ca, chunk, 64 * MiB)
      const baseline = rssOf(pid)
      let peak = baseline
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssOf(pid))
      }, 10)
      const remote = await upload(url, gateway.key, ca, chunk, SIZE)
      clearInterval(sampler)
      peak = Math.max(peak, rssOf(pid))
      const floorRate = await bareNodeRate(dataDir, gateway.key, ca, chunk, local.digest)
      const data = JSON.parse(remote.body).data
      if (data?.digest !== local.digest || data?.input_bytes !== SIZE) {
        throw new Error(`the gateway's digest differs: ${remote.body.slice(0, 300)}`)
      }
      const growth = (peak - baseline) / MiB
      const localRate = SIZE / MiB / (local.ms / 1000)
      const remoteRate = SIZE / MiB / (remote.ms / 1000)
      process.stdout.write(
        `  gateway RSS growth ${growth.toFixed(1)} MiB (baseline ${(baseline / MiB).toFixed(0)} MiB) — ` +
          `${growth < 64 ? 'meets' : 'MISSES'} target (< 64 MiB)\n`,
      )
      return {
        rows: [
          { label: 'in-process sha256', value: localRate, unit: 'MiB/s' },
          { label: 'gateway sha256', value: remoteRate, unit: 'MiB/s' },
          { label: 'floor: bare Node HTTPS server, sha256', value: floorRate, unit: 'MiB/s' },
          { label: '  floor ÷ in-process', value: floorRate / localRate, unit: '×' },
          { label: '  gateway ÷ floor', value: remoteRate / floorRate, unit: '×' },
          { label: 'gateway RSS growth', value: growth, unit: 'MiB' },
        ],
        ratio: remoteRate / localRate,
      }
    } finally {
      await gateway.stop()
    }
  },
}
