import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../../helpers/server-process.ts'

const MiB = 1024 * 1024

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024
}

// The gateway runs in its own process so its RSS is measured alone, without the client's buffers.
describe('binary hash streaming', () => {
  let server: ServerProcess
  let dataDir: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-stream-'))
    server = await startServerProcess({ DATA_DIR: dataDir, DEFAULT_PLAN: 'business', LOG_LEVEL: 'warn' })
  })
  afterAll(async () => {
    await server.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  function upload(total: number, chunk: Buffer): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const req = https.request(`${server.url}/v1/hash/sha256`, {
        method: 'POST',
        ca: server.ca,
        agent: false,
        headers: {
          authorization: `Bearer ${server.firstKey}`,
          'content-type': 'application/octet-stream',
          'content-length': String(total),
        },
      })
      req.on('response', (res) => {
        let text = ''
        res.on('data', (c: Buffer) => {
          text += c.toString()
        })
        res.on('end', () => resolve(text))
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

  it('hashes a 160 MiB octet-stream body over TLS with server RSS growth under 64 MiB', async () => {
    const total = 160 * MiB
    const chunk = Buffer.alloc(MiB)
    for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31) & 0xff
    const expected = createHash('sha256')
    for (let sent = 0; sent < total; sent += MiB) expected.update(chunk)

    // warm up TLS, JIT, the key cache and the allocator's arenas: what is measured after this is what a
    // body's size adds, and a buffering implementation would add the whole body. The warm-up is larger
    // than V8's external-memory GC trigger (64 MiB of Buffers between collections), so the arenas the
    // streamed chunks cycle through have reached their steady size before the baseline is taken.
    await upload(96 * MiB, chunk)
    const pid = server.child.pid!
    const baseline = await rssOf(pid)
    let peak = baseline
    const sampler = setInterval(() => {
      void rssOf(pid).then((r) => {
        peak = Math.max(peak, r)
      })
    }, 10)
    const body = await upload(total, chunk)
    clearInterval(sampler)
    peak = Math.max(peak, await rssOf(pid))
    expect(JSON.parse(body).data).toMatchObject({ digest: expected.digest('hex'), input_bytes: total })
    expect(peak - baseline).toBeLessThan(64 * MiB)
  })
})
