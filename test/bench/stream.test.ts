import { describe, expect, it } from 'vitest'
import { compareStreams } from '../../bench/stream.ts'

const MiB = 1024 * 1024

// The `stream` bench's fast form: raw sha256 and raw json/format minify streamed through a real gateway
// (a thread of the paid pool does the work; the event loop moves bytes) and through a bare Node HTTPS
// server doing the same work on its event loop, in the same run. CPU time per MiB (all threads, from
// /proc) rather than throughput, which a shared CI machine swings: the gateway's stays within 2x the bare
// server's (measured 1.1x; before the shared ring and young collections, 3.6x for sha256), and its RSS
// grows less than 64 MiB.
describe('streaming on the pool costs about what a bare server costs', () => {
  it('sha256 and minify: CPU per MiB within 2x the bare server, RSS growth under 64 MiB', async () => {
    const results = await compareStreams(48 * MiB, 16 * MiB)
    expect(results.map((r) => r.name)).toEqual(['sha256', 'json/format minify'])
    for (const { name, ours, bare } of results) {
      expect(ours.cpuPerMiB, name).toBeLessThan(2 * bare.cpuPerMiB)
      expect(ours.rssGrowth, name).toBeLessThan(64)
    }
  }, 180_000)
})
