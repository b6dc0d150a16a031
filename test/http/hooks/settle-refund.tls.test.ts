import { afterEach, describe, it } from 'vitest'
import { MemoryStore } from '../../../src/store/memory/memory-store.ts'
import { refundScenario } from '../../helpers/charging.ts'
import type { TestApp } from '../../helpers/harness.ts'

// The lane's settle step on the embedded store, which needs no Redis to run (issue 36: it was tested only
// inside a Redis-only suite): the gateway's own 5xx is given back, once; a 200 and a 400 stay charged.
describe('settle: what the gateway itself refuses is never charged (embedded store)', () => {
  let t: TestApp | undefined
  afterEach(async () => {
    await t?.close()
    t = undefined
  })

  it('memory: a 503 ERR_OVERLOADED leaves month usage and quota unchanged; 200 and 400 are charged', async () => {
    const store = await MemoryStore.open({ dataDir: null })
    await refundScenario(store, (app) => {
      t = app
    })
  })
})
