import { join } from 'node:path'
import { load, median } from './lib/load.ts'
import { startGateway, startNode } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)

// POST /v1/hash/sha256 with a tiny input: the gateway (keys, limits, validation, metrics, access log) vs
// bare Fastify with the same handler on the same TLS setup. Rounds alternate so drift hits both sides.
export const smallHash: Scenario = {
  name: 'small-hash',
  title: 'Small sha256 through the gateway vs bare Fastify TLS (embedded store)',
  target: { ratio: 0.9, text: 'gateway ≥ 0.9× bare Fastify req/s' },
  async run() {
    const gateway = await startGateway({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' })
    const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
    const bare = await startNode(
      'bench/baselines/bare-fastify.ts',
      { TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'), TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem') },
      /READY (https:\/\/\S+)/,
    )
    const body = JSON.stringify({ input: 'hello world' })
    const json = { 'content-type': 'application/json' }
    const runs = {
      gateway: [] as number[],
      bare: [] as number[],
      gatewayP99: [] as number[],
      bareP99: [] as number[],
    }
    try {
      await load({ url: `${bare.url}/v1/hash/sha256`, headers: json, body, duration: 2 })
      await load({
        url: `${gateway.url}/v1/hash/sha256`,
        headers: { ...json, authorization: `Bearer ${gateway.key}` },
        body,
        duration: 2,
      })
      for (let i = 0; i < ROUNDS; i++) {
        const b = await load({ url: `${bare.url}/v1/hash/sha256`, headers: json, body, duration: SECONDS })
        const g = await load({
          url: `${gateway.url}/v1/hash/sha256`,
          headers: { ...json, authorization: `Bearer ${gateway.key}` },
          body,
          duration: SECONDS,
        })
        if (g.non2xx || g.errors || b.non2xx || b.errors) {
          throw new Error(
            `non-2xx or errors during the run: gateway ${JSON.stringify(g)} bare ${JSON.stringify(b)}`,
          )
        }
        runs.bare.push(b.rps)
        runs.gateway.push(g.rps)
        runs.bareP99.push(b.p99)
        runs.gatewayP99.push(g.p99)
      }
    } finally {
      await Promise.all([gateway.stop(), bare.stop()])
    }
    const gatewayRps = median(runs.gateway)
    const bareRps = median(runs.bare)
    return {
      rows: [
        { label: 'bare Fastify TLS', value: bareRps, unit: 'req/s', p99_ms: median(runs.bareP99) },
        { label: 'Anvil gateway', value: gatewayRps, unit: 'req/s', p99_ms: median(runs.gatewayP99) },
      ],
      ratio: gatewayRps / bareRps,
    }
  },
}
