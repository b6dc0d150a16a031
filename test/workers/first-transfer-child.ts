import { loadConfig } from '../../src/config.ts'
import { createPools } from '../../src/exec/pools.ts'

// Run by first-transfer.test.ts under --trace-deopt: a warm paid pool of one thread, as a gateway starts
// it, takes its first task, a small diff, whose answer leaves the thread as a transferred buffer.
const config = loadConfig({ POOL_WARM: 'true', POOL_FREE_THREADS: '1', POOL_PAID_THREADS: '1' })
const pools = createPools(config.pools)
try {
  const answer = (await pools.pick('ws_x', 'paid').piscina.run({
    kind: 'op',
    op: 'json.diff',
    input: { left: { items: [{ id: 1 }, { id: 2 }] }, right: { items: [{ id: 2 }] }, array_key: 'id' },
    octets: false,
    caps: {},
    tenant: 't',
  })) as { bytes: Uint8Array }
  process.stdout.write(`answered ${answer.bytes.byteLength} bytes\n`)
} finally {
  await pools.close()
}
