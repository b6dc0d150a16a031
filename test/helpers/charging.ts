import { expect } from 'vitest'
import type { Store } from '../../src/store/types.ts'
import { startTestApp, type TestApp } from './harness.ts'
import { declaredBodyOnly, h1Request } from './tls-client.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// The lane's settle step, through a gateway on `store` (docs/decisions.md, "Limits"): a request the gateway
// admitted and charged, then refused itself with a 5xx (503 ERR_OVERLOADED at a full pool's door), is given
// back to the quota and the usage, exactly once; a 200 and a 400 stay charged. `started` receives the app,
// for the caller to close.
export async function refundScenario(store: Store, started: (app: TestApp) => void): Promise<void> {
  const app = await startTestApp({
    listen: true,
    overrides: { store },
    env: { POOL_PAID_THREADS: '1', POOL_PAID_QUEUE: '1', POOL_ADMISSION_WAIT_MS: '0' },
  })
  started(app)
  const ca = app.tls!.cert
  const call = (body: string) =>
    h1Request(app.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      headers: { authorization: `Bearer ${app.key}`, 'content-type': 'application/json' },
      body,
      ca,
    })
  // a request to the paid pool whose large body is declared but never sent: refused at the door when the
  // pool is full and POOL_ADMISSION_WAIT_MS is 0
  const declaredOnly = () =>
    declaredBodyOnly(app.url, { path: '/v1/json/diff', ca, key: app.key, length: 5_000_000 })
  expect((await call('{"input":"x"}')).status).toBe(200)
  // answered by the service: a validation error is charged like a success
  expect((await call('{"input":1}')).status).toBe(400)
  const usage = () => app.runtime.store.usage(app.workspaceId)
  const charged = await usage()
  expect(charged.workspace.requests).toBe(2)

  const admission = app.runtime.pools.pick(app.workspaceId, 'paid').admission
  const held = Array.from(
    { length: admission.capacity },
    (_, i) => admission.reserve(`ws_fill_${i}`, 0).reservation,
  )
  try {
    for (let i = 0; i < 3; i++) {
      const refused = await declaredOnly()
      expect(refused.status).toBe(503)
      expect(refused.json<{ error: { code: string } }>().error.code).toBe('ERR_OVERLOADED')
    }
  } finally {
    for (const r of held) admission.cancel(r)
  }
  // the refund runs after the response is sent: wait for it, boundedly, then a while for any second one
  const deadline = performance.now() + 3_000
  while ((await usage()).workspace.requests !== 2 && performance.now() < deadline) await sleep(20)
  await sleep(200)
  const after = await usage()
  expect(after.workspace).toEqual(charged.workspace)
  expect(after.keys).toEqual(charged.keys)
  expect(after.daily).toEqual(charged.daily)
  expect(await app.runtime.metrics.registry.metrics()).toContain('anvil_charge_refunds_total 3\n')
  // and the next admitted request sees the quota as if the refused ones never happened
  const next = await call('{"input":"y"}')
  expect(next.status).toBe(200)
  expect((await usage()).workspace.requests).toBe(3)
}
