import { once } from 'node:events'
import { performance } from 'node:perf_hooks'
import type { Transform } from 'node:stream'
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib'
import { median } from './lib/load.ts'
import type { Scenario, ScenarioRow } from './lib/scenario.ts'

// What compressing a JSON answer costs and saves, by size, with the settings of src/http/answer/compression.ts
// (brotli quality 4, gzip level 6, zlib's stream API): the threshold is where
// the bytes saved start to matter (an answer that fits one TCP segment gains nothing) and the latency
// added stays small. In-process, zlib only; small-hash measures the cost of the plugin on small answers
// (Accept-Encoding sent, answer below the threshold) through the whole gateway.
const SIZES = [256, 512, 1024, 1460, 2048, 4096, 16384, 65536, 262144]
const RUNS = Number(process.env.BENCH_COMPRESSION_RUNS ?? 200)
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }

// an answer of about n bytes that looks like ours: an envelope around a list of hash results
function answer(n: number): Buffer {
  const items: unknown[] = []
  let i = 0
  const make = () =>
    JSON.stringify({
      ok: true,
      data: { items, has_more: false },
    })
  while (make().length < n) {
    items.push({
      id: `key_${(i * 7919).toString(36).padStart(24, 'x')}`,
      algorithm: 'sha256',
      digest: (BigInt(i + 1) * 0x9e3779b97f4a7c15n).toString(16).padStart(64, '0').slice(0, 64),
      input_bytes: i * 13,
    })
    i++
  }
  return Buffer.from(make().slice(0, Math.max(n, 2)))
}

async function streamed(make: () => Transform, input: Buffer): Promise<number> {
  let size = 0
  const zip = make()
  zip.on('data', (chunk: Buffer) => {
    size += chunk.length
  })
  zip.end(input)
  await once(zip, 'end')
  return size
}

async function time(fn: () => Promise<unknown> | unknown): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now()
    await fn()
    samples.push((performance.now() - start) * 1000)
  }
  return median(samples)
}

export const compression: Scenario = {
  name: 'compression',
  title: 'JSON compression by size: bytes saved and latency added (br q4, gzip 6, stream API)',
  target: { ratio: 2, text: 'br shrinks a 1 KiB JSON answer ≥ 2×' },
  async run() {
    const rows: ScenarioRow[] = []
    let ratioAt1k = 0
    for (const size of SIZES) {
      const input = answer(size)
      const br = await streamed(() => createBrotliCompress(BROTLI), input)
      const gz = await streamed(() => createGzip({ level: 6 }), input)
      const brAsync = await time(() => streamed(() => createBrotliCompress(BROTLI), input))
      const gzAsync = await time(() => streamed(() => createGzip({ level: 6 }), input))
      // what the same work would block the event loop for if done synchronously
      const brSync = await time(() => brotliCompressSync(input, BROTLI))
      const gzSync = await time(() => gzipSync(input, { level: 6 }))
      if (size === 1024) ratioAt1k = input.length / br
      rows.push(
        { label: `${size} B: br bytes`, value: br, unit: 'B' },
        { label: `${size} B: gzip bytes`, value: gz, unit: 'B' },
        { label: `${size} B: br stream latency`, value: brAsync, unit: 'µs' },
        { label: `${size} B: gzip stream latency`, value: gzAsync, unit: 'µs' },
        { label: `${size} B: br CPU (sync equivalent)`, value: brSync, unit: 'µs' },
        { label: `${size} B: gzip CPU (sync equivalent)`, value: gzSync, unit: 'µs' },
      )
    }
    return { rows, ratio: ratioAt1k }
  },
}
