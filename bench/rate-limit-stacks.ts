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
  // issue 26: total CPU (the server and redis-server, from /proc) per request, ≤ 0.75× the Express stack's,
  // at 16 connections
  target: {
    ratio: 1 / 0.75,
    text:
      'gateway + redis-server CPU per request ≤ 0.75× Express + express-rate-limit + rate-limit-redis ' +
      '(ratio = Express ÷ gateway total CPU ≥ 1.333)',
  },
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
    const at16 = { connections: 16 }
    const targets = [
      new Target('Anvil gateway (Redis)', gateway.url, headers, [gateway.child.pid, redis.child.pid], at16),
      new Target(
        '@fastify/rate-limit (Redis)',
        fastify.url,
        headers,
        [fastify.child.pid, redis.child.pid],
        at16,
      ),
      new Target(
        'Express + express-rate-limit',
        express.url,
        headers,
        [express.child.pid, redis.child.pid],
        at16,
      ),
    ]
    try {
      await alternate(targets, JSON.stringify({ input: 'hello world' }))
    } finally {
      await Promise.all([gateway.stop(), fastify.stop(), express.stop()])
      await redis.stop()
    }
    const [g, f, e] = targets as [Target, Target, Target]
    return {
      rows: [
        ...targets.flatMap((t) => [
          ...t.rows(['server', 'redis-server']),
          { label: '  total (server + redis-server)', value: t.totalCpu(), unit: 'µs CPU/request' },
        ]),
        {
          label: 'gateway ÷ Express, total CPU',
          value: g.totalCpu() / e.totalCpu(),
          unit: '× (target ≤ 0.75)',
        },
        { label: 'gateway ÷ @fastify/rate-limit, total CPU', value: g.totalCpu() / f.totalCpu(), unit: '×' },
        { label: 'gateway ÷ Express, req/s', value: median(g.rps) / median(e.rps), unit: '×' },
      ],
      ratio: e.totalCpu() / g.totalCpu(),
    }
  },
}
