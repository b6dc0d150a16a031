import { describe, expect, it } from 'vitest'
import { EndpointUsageRecorder, LATENCY_BOUNDS_MS, latencyBucket } from '../../src/store/endpoint-usage.ts'
import { MemoryStore } from '../../src/store/memory/memory-store.ts'
import type { Store } from '../../src/store/types.ts'

const T0 = Date.UTC(2026, 4, 31, 23, 59, 59)

describe('per-endpoint usage recorder', () => {
  it('buckets a latency by the first bound at or above it; past the last bound, the last bucket', () => {
    expect(latencyBucket(0)).toBe(0)
    expect(latencyBucket(5)).toBe(0)
    expect(latencyBucket(5.01)).toBe(1)
    expect(latencyBucket(10_000)).toBe(LATENCY_BOUNDS_MS.length - 1)
    expect(latencyBucket(10_000.5)).toBe(LATENCY_BOUNDS_MS.length)
    expect(latencyBucket(1e9)).toBe(LATENCY_BOUNDS_MS.length)
  })

  it('counts by outcome and latency, flushes in one call, and reads what is not flushed yet', async () => {
    const store = await MemoryStore.open({ dataDir: null })
    const ws = await store.createWorkspace({ name: 'w', plan: 'free' })
    const calls: unknown[] = []
    const spy: Pick<Store, 'addEndpointUsage' | 'endpointUsage'> = {
      addEndpointUsage: (month, batch) => {
        calls.push(month)
        return store.addEndpointUsage(month, batch)
      },
      endpointUsage: (w, m) => store.endpointUsage(w, m),
    }
    const recorder = new EndpointUsageRecorder(spy, 60_000)
    const at = T0 - 60_000
    recorder.note(ws.id, 'POST', '/v1/hash/:algorithm', 200, 3, at)
    recorder.note(ws.id, 'POST', '/v1/hash/:algorithm', 429, 1, at)
    recorder.note(ws.id, 'POST', '/v1/hash/:algorithm', 503, 30, at)
    recorder.note(ws.id, 'GET', '/v1/jobs/:id', 200, 20_000, at)
    const expected = {
      'POST /v1/hash/:algorithm': {
        ok: 1,
        client_errors: 1,
        server_errors: 1,
        latency: [2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
      },
      'GET /v1/jobs/:id': {
        ok: 1,
        client_errors: 0,
        server_errors: 0,
        latency: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
      },
    }
    expect(await recorder.read(ws.id, '2026-05')).toEqual(expected)
    expect(calls).toEqual([])
    await recorder.flush()
    expect(calls).toEqual(['2026-05'])
    expect(await store.endpointUsage(ws.id, '2026-05')).toEqual(expected)
    // nothing pending: the read is the store's, not counted twice
    expect(await recorder.read(ws.id, '2026-05')).toEqual(expected)
    await recorder.flush()
    expect(calls).toHaveLength(1)
    await recorder.close()
    await store.close()
  })

  it('a request of the next month flushes the month before under its own name', async () => {
    const store = await MemoryStore.open({ dataDir: null })
    const ws = await store.createWorkspace({ name: 'w', plan: 'free' })
    const recorder = new EndpointUsageRecorder(store, 60_000)
    recorder.note(ws.id, 'POST', '/v1/x', 200, 1, T0)
    recorder.note(ws.id, 'POST', '/v1/x', 200, 1, T0 + 1_000)
    await recorder.close()
    expect((await store.endpointUsage(ws.id, '2026-05'))['POST /v1/x']?.ok).toBe(1)
    expect((await store.endpointUsage(ws.id, '2026-06'))['POST /v1/x']?.ok).toBe(1)
    await store.close()
  })

  it('keeps the counts for the next flush when the store is unreachable', async () => {
    const store = await MemoryStore.open({ dataDir: null })
    const ws = await store.createWorkspace({ name: 'w', plan: 'free' })
    let down = true
    const flaky: Pick<Store, 'addEndpointUsage' | 'endpointUsage'> = {
      addEndpointUsage: (month, batch) =>
        down ? Promise.reject(new Error('down')) : store.addEndpointUsage(month, batch),
      endpointUsage: (w, m) => store.endpointUsage(w, m),
    }
    const recorder = new EndpointUsageRecorder(flaky, 60_000)
    recorder.note(ws.id, 'POST', '/v1/x', 200, 1, T0)
    await recorder.flush()
    recorder.note(ws.id, 'POST', '/v1/x', 500, 1, T0)
    down = false
    await recorder.flush()
    expect((await store.endpointUsage(ws.id, '2026-05'))['POST /v1/x']).toMatchObject({
      ok: 1,
      server_errors: 1,
    })
    await recorder.close()
    await store.close()
  })
})
