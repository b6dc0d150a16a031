import { join } from 'node:path'
import { median } from './lib/load.ts'
import { startGateway, startNode } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'
import { alternate, Target } from './small-hash-redis.ts'

// POST /v1/hash/sha256 with a tiny input: the gateway (keys, limits, validation, metrics, access log) vs
// bare Fastify with the same handler on the same TLS setup. Rounds alternate so drift hits every side.
// A third server, the floor (bench/baselines/floor.ts), adds to bare Fastify only what the contract makes
// every gateway do (a key lookup and the three /v1 headers): its ratio bounds what the gateway can reach on
// this machine, and CPU per request (from /proc) shows the gateway's own cost beside it.
export const smallHash: Scenario = {
  name: 'small-hash',
  title: 'Small sha256 through the gateway vs bare Fastify TLS (embedded store)',
  target: { ratio: 0.9, text: 'gateway ≥ 0.9× bare Fastify req/s' },
  async run() {
    const gateway = await startGateway({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' })
    const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
    const tls = {
      TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'),
      TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem'),
    }
    const ready = /READY (https:\/\/\S+)/
    const bare = await startNode('bench/baselines/bare-fastify.ts', tls, ready)
    const floor = await startNode('bench/baselines/floor.ts', { ...tls, API_KEY: gateway.key }, ready)
    const json = { 'content-type': 'application/json' }
    const withKey = { ...json, authorization: `Bearer ${gateway.key}` }
    const targets = [
      new Target('bare Fastify TLS', bare.url, json, [bare.child.pid]),
      new Target('floor: bare + key lookup + contract headers', floor.url, withKey, [floor.child.pid]),
      new Target('Anvil gateway', gateway.url, withKey, [gateway.child.pid]),
    ]
    try {
      await alternate(targets, JSON.stringify({ input: 'hello world' }))
    } finally {
      await Promise.all([gateway.stop(), bare.stop(), floor.stop()])
    }
    const [b, f, g] = targets as [Target, Target, Target]
    return {
      rows: [
        ...b.rows(['server']),
        ...f.rows(['server']),
        { label: '  floor ÷ bare', value: median(f.rps) / median(b.rps), unit: '×' },
        ...g.rows(['server']),
      ],
      ratio: median(g.rps) / median(b.rps),
    }
  },
}
