import { describe, expect, it } from 'vitest'
import { freeDiffFlood, paidSmallRequests, proRawStreams } from '../../bench/isolation.ts'
import { UNLIMITED, workspaceKey } from '../../bench/lib/admin.ts'
import { loadInProcess } from '../../bench/lib/load-process.ts'
import { probeInProcess } from '../../bench/lib/probe.ts'
import { type Gateway, startGateway } from '../../bench/lib/processes.ts'
import { streamInProcess } from '../../bench/lib/stream-process.ts'

const MiB = 1024 * 1024

// The gateway's event-loop mark-compacts so far, from its own metrics (prom-client's nodejs_gc_duration)
async function majorCollections(gateway: Gateway): Promise<number> {
  const res = await fetch(`${gateway.adminUrl}/metrics`, {
    headers: { authorization: `Bearer ${gateway.adminToken}` },
  })
  const m = /^nodejs_gc_duration_seconds_count\{kind="major"\} (\d+)$/m.exec(await res.text())
  if (!m) throw new Error('no nodejs_gc_duration_seconds_count{kind="major"} in /metrics')
  return Number(m[1])
}

// The `isolation` benches' fast forms: another tenant's heavy work while a paid tenant's small requests are
// timed. Their p99 stays within 5x the quiet one (or 50 ms on a machine where the quiet p99 is tiny). The
// probe runs in a process of its own, as the gateway and the load do: in this file's process (vitest's,
// shared) it timed that process's collections too (CI read a quiet p99 of 11 ms and a loaded one of 57).
describe("one tenant's heavy work does not delay the others", () => {
  // (a) a free-plan flood of heavy diffs: measured 1.7x (the free pool's threads yield to the event loop)
  it('paid small-request p99 under a free-plan flood of heavy diffs stays within 5x of quiet', async () => {
    const gateway = await startGateway({ LOG_LEVEL: 'warn' })
    try {
      const paid = await workspaceKey(gateway, 'pro', UNLIMITED)
      const free = await workspaceKey(gateway, 'free', UNLIMITED)
      const steady = paidSmallRequests(gateway, paid, 3)
      await probeInProcess({ ...steady, seconds: 1 })
      const quiet = await probeInProcess(steady)
      const flood = freeDiffFlood(gateway, free, 3)
      const majorsBefore = await majorCollections(gateway)
      const [loud, flooded] = await Promise.all([probeInProcess(steady), loadInProcess(flood, 10)])
      const majors = (await majorCollections(gateway)) - majorsBefore
      expect(flooded.rps).toBeGreaterThan(0)
      // The flood's waiting requests are promoted; with V8's default heap growth the event loop ran a
      // mark-compact every ~0.7 s (4-5 in these 3 s, each a 5-15 ms pause): growOldGenerationInWideSteps,
      // src/lib/gc.ts (growth factor 2), leaves 0-1
      expect(majors).toBeLessThanOrEqual(2)
      expect(quiet.failures + loud.failures).toBe(0)
      expect(loud.p99).toBeLessThan(Math.max(5 * quiet.p99, 50))
    } finally {
      await gateway.stop()
    }
  }, 120_000)

  // (b) measured 1.4-1.7x; when raw bodies were formatted on the event loop, 4 ms became 3.4 s (860x), and
  // with paid threads only niced, 8.4 ms over 2.6 (3.2x)
  it('paid small-request p99 while a pro tenant streams stays within 5x of quiet', async () => {
    const gateway = await startGateway({ LOG_LEVEL: 'warn' })
    try {
      const paid = await workspaceKey(gateway, 'pro', UNLIMITED)
      const streamer = await workspaceKey(gateway, 'pro', UNLIMITED)
      const steady = paidSmallRequests(gateway, paid, 3)
      // warm: connections, code paths and the pool's threads
      await probeInProcess({ ...steady, seconds: 1 })
      const quiet = await probeInProcess(steady)
      const streams = proRawStreams(gateway, streamer, 32 * MiB, 3)
      const [loud, streamed] = await Promise.all([probeInProcess(steady), streamInProcess(streams, 10)])
      expect(streamed.failures).toBe(0)
      expect(streamed.uploads).toBeGreaterThan(0)
      expect(quiet.failures + loud.failures).toBe(0)
      expect(loud.p99).toBeLessThan(Math.max(5 * quiet.p99, 50))
    } finally {
      await gateway.stop()
    }
  }, 120_000)
})
