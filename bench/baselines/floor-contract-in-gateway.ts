import { readFile } from 'node:fs/promises'
import { join } from 'node:path'

// The contract floor (floor-contract.ts, unchanged) served by a process that is also a running gateway:
// `npm start`'s entry starts first, on its own ports, with everything it loads and keeps (the catalog, its
// pool threads, the store, its timers); then the contract floor listens on a port of its own in the same
// process, on the gateway's certificate and first key. CPU per request of this process with only the
// floor's port under load is what the contract floor's code costs in a process like the gateway's, and its
// ratio to the contract floor alone is the share of the process, not of either path (docs/dispatch.md,
// "The process, in every run": bench/small-hash.ts and bench/small-hash-redis.ts print it). The gateway
// prints its banner, then this file the floor's `READY <url>`.
await import('../../src/main/gateway.ts')
const dataDir = process.env.DATA_DIR!
const secrets = await readFile(join(dataDir, 'first-start.txt'), 'utf8')
process.env.API_KEY = /^\s+(anvil_live_[0-9A-Za-z]{36})$/m.exec(secrets)![1]!
process.env.TLS_CERT_FILE = join(dataDir, 'tls', 'cert.pem')
process.env.TLS_KEY_FILE = join(dataDir, 'tls', 'key.pem')
await import('./floor-contract.ts')
