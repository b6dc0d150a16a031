import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CATALOG } from '../../src/ops/catalog.ts'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/harness.ts'

// one small request per op that runs it, taken from its descriptor: the first example that answers JSON
// success to a JSON body (every op declares one: 'covers the registry')
const CALLS: [string, string, unknown][] = CATALOG.ops.flatMap((op) => {
  const example = op.examples.find(
    (e) => e.data !== undefined && e.body !== undefined && e.raw === undefined && e.headers === undefined,
  )
  if (!example) return []
  const query = example.query ? `?${new URLSearchParams(example.query)}` : ''
  return [[op.name, `${example.path ?? op.http.path}${query}`, example.body]]
})

async function dispatchCounts(t: TestApp): Promise<Map<string, number>> {
  const res = await t.admin.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  })
  const counts = new Map<string, number>()
  for (const m of res.body.matchAll(/^anvil_dispatch_total\{op="([^"]+)",mode="([^"]+)"\} (\S+)$/gm)) {
    counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + Number(m[3]))
  }
  return counts
}

// Issue 14: routes get only `run`. Every op in the registry is reachable from a route, and the route
// reaches it through the dispatcher: each request below moves that op's anvil_dispatch_total by one.
describe('every registry op is reachable from a route, only through run', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t?.close())

  it('covers the registry', () => {
    expect(new Set(CALLS.map(([op]) => op))).toEqual(new Set(CATALOG.ops.map((op) => op.name)))
  })

  it.each(CALLS)('%s via POST %s', async (op, path, body) => {
    const counts = await dispatchCounts(t)
    const before = counts.get(op) ?? 0
    const total = [...counts.values()].reduce((a, b) => a + b, 0)
    const res = await t.post(path, body)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().ok).toBe(true)
    const after = await dispatchCounts(t)
    expect(after.get(op)).toBe(before + 1)
    // and nothing else was dispatched for it
    expect([...after.values()].reduce((a, b) => a + b, 0)).toBe(total + 1)
  })
})
