import { join } from 'node:path'
import { median } from './lib/load.ts'
import { startGateway, startGatewayWithContractFloor, startNode } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'
import { alternate, processRows, Target } from './small-hash-redis.ts'

// POST /v1/hash/sha256 with a tiny input: the gateway (keys, limits, validation, metrics, access log) vs
// bare Fastify with the same handler on the same TLS setup. Rounds alternate so drift hits every side.
// A third server, the floor (bench/baselines/floor.ts), adds to bare Fastify only what the contract makes
// every gateway do (a key lookup and the three /v1 headers): its ratio bounds what the gateway can reach on
// this machine, and CPU per request (from /proc) shows the gateway's own cost beside it. A fourth, the
// contract floor (bench/baselines/floor-contract.ts), adds to the floor the features every keyed request
// must have (validation, two rates and two quotas, metrics, the access line) in their plainest form: the
// gateway's ratio to it is what the gateway's own structure costs. A fifth process is a gateway that also
// serves the contract floor on a second port (bench/baselines/floor-contract-in-gateway.ts), each port
// loaded in rounds of its own: the contract floor's code in a process like the gateway's, against itself
// alone (what the process costs), and the gateway beside it in that process (what its path costs).
export const smallHash: Scenario = {
  name: 'small-hash',
  title: 'Small sha256 through the gateway vs bare Fastify TLS (embedded store, Node CPU per request)',
  // issue 18: restated from req/s (which the load generator sharing two cores bounds) to CPU per request
  target: {
    ratio: 1 / 1.35,
    text: 'gateway Node CPU per request ≤ 1.35× bare Fastify TLS (ratio = bare ÷ gateway CPU ≥ 0.741)',
  },
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
    const contract = await startNode(
      'bench/baselines/floor-contract.ts',
      { ...tls, API_KEY: gateway.key },
      ready,
    )
    const shared = await startGatewayWithContractFloor({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' })
    const json = { 'content-type': 'application/json' }
    const withKey = { ...json, authorization: `Bearer ${gateway.key}` }
    const withSharedKey = { ...json, authorization: `Bearer ${shared.key}` }
    const targets = [
      new Target('bare Fastify TLS', bare.url, json, [bare.child.pid]),
      new Target('floor: bare + key lookup + contract headers', floor.url, withKey, [floor.child.pid]),
      new Target('contract floor: + validation, limits, metrics, log', contract.url, withKey, [
        contract.child.pid,
      ]),
      new Target('Anvil gateway', gateway.url, withKey, [gateway.child.pid]),
      // the cost of compression on a small answer: negotiated, below the threshold, sent as is
      new Target(
        'Anvil gateway, Accept-Encoding: br, gzip',
        gateway.url,
        { ...withKey, 'accept-encoding': 'br, gzip' },
        [gateway.child.pid],
      ),
      new Target("contract floor in a gateway's process", shared.floorUrl, withSharedKey, [shared.child.pid]),
      new Target('gateway, beside it in that process', shared.url, withSharedKey, [shared.child.pid]),
    ]
    try {
      await alternate(targets, JSON.stringify({ input: 'hello world' }))
    } finally {
      await Promise.all([gateway.stop(), bare.stop(), floor.stop(), contract.stop(), shared.stop()])
    }
    const [b, f, k, g, c, kp, gp] = targets as [Target, Target, Target, Target, Target, Target, Target]
    return {
      rows: [
        ...b.rows(['server']),
        ...f.rows(['server']),
        ...k.rows(['server']),
        ...g.rows(['server']),
        { label: 'gateway ÷ bare, Node CPU', value: g.cpu() / b.cpu(), unit: '× (target ≤ 1.35)' },
        { label: 'floor ÷ bare, Node CPU', value: f.cpu() / b.cpu(), unit: '×' },
        { label: 'gateway ÷ floor, Node CPU', value: g.cpu() / f.cpu(), unit: '× (target ≤ 1.1)' },
        { label: 'contract floor ÷ floor, Node CPU', value: k.cpu() / f.cpu(), unit: '×' },
        { label: 'contract floor ÷ bare, Node CPU', value: k.cpu() / b.cpu(), unit: '×' },
        { label: 'gateway ÷ contract floor, Node CPU', value: g.cpu() / k.cpu(), unit: '× (target ≤ 1.1)' },
        ...processRows(k, kp, gp, ''),
        { label: 'gateway ÷ bare, req/s', value: median(g.rps) / median(b.rps), unit: '×' },
        { label: 'floor ÷ bare, req/s', value: median(f.rps) / median(b.rps), unit: '×' },
        ...c.rows(['server']),
        { label: '  Accept-Encoding ÷ without', value: median(c.rps) / median(g.rps), unit: '×' },
      ],
      ratio: b.cpu() / g.cpu(),
    }
  },
}
