import { randomBytes } from 'node:crypto'
import { afterAll, afterEach, beforeAll, it } from 'vitest'
import { RedisStore } from '../../../src/store/redis/redis-store.ts'
import { refundScenario } from '../../helpers/charging.ts'
import type { TestApp } from '../../helpers/harness.ts'
import { describeRedis, type RedisServer, startRedis } from '../../helpers/redis-server.ts'

// The gateway's own refusals are not charged (docs/decisions.md): a request the gateway admitted and
// charged, then refused itself with a 5xx, is given back to the quota and the usage, on Redis (the embedded
// store: test/http/hooks/settle-refund.tls.test.ts).
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

  it('redis: a 503 ERR_OVERLOADED leaves month usage and quota unchanged; 200 and 400 are charged', async () => {
    const store = await RedisStore.open({
      target: { url: server.url },
      prefix: `charge${randomBytes(4).toString('hex')}`,
    })
    await refundScenario(store, (app) => {
      t = app
    })
  })
})
