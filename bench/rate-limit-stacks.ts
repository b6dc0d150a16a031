import { join } from 'node:path'
import { startRedis } from '../test/helpers/redis-server.ts'
import { median } from './lib/load.ts'
import { startGateway, startNode } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'
import { alternate, Target } from './small-hash-redis.ts'

// The gateway on Redis against the stacks users would otherwise assemble, all on the same Redis, TLS
// certificate and handler: @fastify/rate-limit with its Redis store, and Express + express-rate-limit +
// rate-limit-redis. Those keep one fixed-window counter per client and nothing else (no key store, no
// quota, no workspace cap), so this is the price of exactness against what people would write instead.
export const rateLimitStacks: Scenario = {
  name: 'rate-limit-stacks',
  title: 'Small sha256, rate-limited on Redis: gateway vs @fastify/rate-limit vs Express stack',
  target: { ratio: 1.5, text: 'gateway ≥ 1.5× Express + express-rate-limit + rate-limit-redis req/s' },
  async run() {
    const redis = await startRedis()
    const gateway = await startGateway({
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      REDIS_URL: redis.url,
    })
    const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
    const env = {
      TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'),
      TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem'),
      REDIS_URL: redis.url,
    }
    const ready = /READY (https:\/\/\S+)/
    const fastify = await startNode('bench/baselines/fastify-rate-limit.ts', env, ready)
    const express = await startNode('bench/baselines/express-rate-limit.ts', env, ready)
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${gateway.key}` }
    const targets = [
      new Target('Anvil gateway (Redis)', gateway.url, headers, [gateway.child.pid, redis.child.pid]),
      new Target('@fastify/rate-limit (Redis)', fastify.url, headers, [fastify.child.pid, redis.child.pid]),
      new Target('Express + express-rate-limit', express.url, headers, [express.child.pid, redis.child.pid]),
    ]
    try {
      await alternate(targets, JSON.stringify({ input: 'hello world' }))
    } finally {
      await Promise.all([gateway.stop(), fastify.stop(), express.stop()])
      await redis.stop()
    }
    return {
      rows: targets.flatMap((t) => t.rows(['server', 'redis-server'])),
      ratio: median(targets[0]!.rps) / median(targets[2]!.rps),
    }
  },
}
