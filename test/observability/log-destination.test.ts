import { spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LogDestination } from '../../src/observability/log-destination.ts'

const line = (i: number) => `{"level":30,"n":${i},"msg":"${'é'.repeat(i % 7)}x"}\n`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('LogDestination: the process log, batched and asynchronous', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'anvil-logdest-'))
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('writes every line once, in order, in batches of about flushAt characters', async () => {
    const path = join(dir, 'batches.log')
    const fd = openSync(path, 'w')
    const d = new LogDestination(fd, { flushAt: 1000, flushMs: 60_000 })
    const expected: string[] = []
    for (let i = 0; i < 500; i++) {
      expected.push(line(i))
      d.write(line(i))
      if (i % 37 === 0) await sleep(0)
    }
    await sleep(50)
    // a batch reached flushAt and left without waiting for the timer; what is left goes at drain
    const before = await readFile(path, 'utf8')
    expect(before.length).toBeGreaterThan(0)
    expect(expected.join('').startsWith(before)).toBe(true)
    await d.drain()
    closeSync(fd)
    expect(await readFile(path, 'utf8')).toBe(expected.join(''))
  })

  it('a quiet process still writes its lines within flushMs', async () => {
    const path = join(dir, 'quiet.log')
    const fd = openSync(path, 'w')
    const d = new LogDestination(fd, { flushAt: 1 << 20, flushMs: 100 })
    d.write(line(1))
    await sleep(20)
    expect(await readFile(path, 'utf8')).toBe('')
    await sleep(300)
    expect(await readFile(path, 'utf8')).toBe(line(1))
    closeSync(fd)
  })

  it('a reader slower than the writes (a full pipe: EAGAIN, partial writes) gets every byte, in order', async () => {
    // a reader that takes a while to start and then copies its stdin to a file
    const out = join(dir, 'pipe.log')
    const reader = spawn('sh', ['-c', `sleep 0.5; cat > ${out}`], { stdio: ['pipe', 'ignore', 'inherit'] })
    const fd = (reader.stdin as unknown as { _handle: { fd: number } })._handle.fd
    const d = new LogDestination(fd, { flushAt: 64 * 1024, flushMs: 10 })
    const expected: string[] = []
    // ~6 MB: far more than a pipe holds (64 KiB), written while nobody reads
    for (let i = 0; i < 150_000; i++) {
      expected.push(line(i))
      d.write(line(i))
      if (i % 1000 === 0) await sleep(0)
    }
    // everything written so far, in order, once the reader takes it: drain waits for the batch in flight
    await d.drain()
    reader.stdin!.end()
    await new Promise((r) => reader.once('exit', r))
    expect(await readFile(out, 'utf8')).toBe(expected.join(''))
  }, 30_000)

  it('holds at most maxPending characters for a reader that does not read, and says how many it dropped', async () => {
    const path = join(dir, 'dropped.log')
    const fd = openSync(path, 'w')
    const d = new LogDestination(fd, { flushAt: 1 << 20, flushMs: 60_000, maxPending: 100 })
    let accepted = 0
    for (let i = 0; i < 10; i++) if (d.write('x'.repeat(30))) accepted++
    expect(accepted).toBe(3)
    await d.drain()
    closeSync(fd)
    const text = await readFile(path, 'utf8')
    expect(text.startsWith('x'.repeat(90))).toBe(true)
    expect(JSON.parse(text.slice(90))).toMatchObject({ level: 40, dropped: 7 })
  })
})
