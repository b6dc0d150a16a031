import { randomBytes } from 'node:crypto'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { MemoryStore } from '../../../src/store/memory/memory-store.ts'
import { RedisStore } from '../../../src/store/redis/redis-store.ts'
import type { Store } from '../../../src/store/types.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { describeRedis, type RedisServer, startRedis } from '../../helpers/redis-server.ts'
import { declaredBodyOnly, h1Request } from '../../helpers/tls-client.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// The gateway's own refusals are not charged (docs/decisions.md): a request the gateway admitted and
// charged, then refused itself with a 5xx, is given back to the quota and the usage, on both stores.
describeRedis('charging: what the gateway itself refuses is never charged', () => {
  let server: RedisServer
  let t: TestApp | undefined
  beforeAll(async () => {
    server = await startRedis()
  })
  afterEach(async () => {
    await t?.close()
    t = undefined
  })
  afterAll(() => server?.stop())

  // a request to the paid pool whose large body is declared but never sent: refused at the door when
  // the pool is full and POOL_ADMISSION_WAIT_MS is 0
  const declaredOnly = (app: TestApp, length: number) =>
    declaredBodyOnly(app.url, { path: '/v1/json/diff', ca: app.tls!.cert, key: app.key, length })

  for (const kind of ['memory', 'redis'] as const) {
    it(`${kind}: a 503 ERR_OVERLOADED leaves month usage and quota unchanged; 200 and 400 are charged`, async () => {
      const store: Store =
        kind === 'memory'
          ? await MemoryStore.open({ dataDir: null })
          : await RedisStore.open({
              target: { url: server.url },
              prefix: `charge${randomBytes(4).toString('hex')}`,
            })
      const app = await startTestApp({
        listen: true,
        overrides: { store },
        env: { POOL_PAID_THREADS: '1', POOL_PAID_QUEUE: '1', POOL_ADMISSION_WAIT_MS: '0' },
      })
      t = app
      const ca = app.tls!.cert
      const call = (body: string) =>
        h1Request(app.url, {
          method: 'POST',
          path: '/v1/hash/sha256',
          headers: { authorization: `Bearer ${app.key}`, 'content-type': 'application/json' },
          body,
          ca,
        })
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
          const refused = await declaredOnly(app, 5_000_000)
          expect(refused.status).toBe(503)
          expect(refused.json<{ error: { code: string } }>().error.code).toBe('ERR_OVERLOADED')
        }
      } finally {
        for (const r of held) admission.cancel(r)
      }
      // the refund runs after the response is sent: wait for it, boundedly
      const deadline = performance.now() + 3_000
      while ((await usage()).workspace.requests !== 2 && performance.now() < deadline) await sleep(20)
      const after = await usage()
      expect(after.workspace).toEqual(charged.workspace)
      expect(after.keys).toEqual(charged.keys)
      expect(after.daily).toEqual(charged.daily)
      expect(await app.runtime.metrics.registry.metrics()).toContain('anvil_charge_refunds_total 3\n')
      // and the next admitted request sees the quota as if the refused ones never happened
      const next = await call('{"input":"y"}')
      expect(next.status).toBe(200)
      expect((await usage()).workspace.requests).toBe(3)
    })
  }
})
