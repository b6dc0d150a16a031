import { createServer, type Server } from 'node:http'
import pino from 'pino'
import type { Registry } from 'prom-client'
import { type Config, ConfigError, loadConfig } from '../config.ts'
import { openPools } from '../exec/open.ts'
import { createJobMetrics } from '../jobs/metrics.ts'
import { type Consumer, startConsumer } from '../jobs/redis/consumer.ts'
import { emptyDepth } from '../jobs/types.ts'
import { VERSION } from '../lib/version.ts'
import { sourceCommit } from '../observability/build-info.ts'
import { errorSerializers } from '../observability/log-errors.ts'
import { createProcessRegistry } from '../observability/metrics.ts'
import { createRedisMetrics } from '../observability/redis-metrics.ts'
import { openTracing } from '../observability/tracing/open.ts'
import { redisTarget } from '../store/open.ts'
import { describeTarget } from '../store/redis/client.ts'

// `npm run worker`: a job worker process. Run any number, on any machine that reaches the gateways'
// Redis; each runs jobs on Piscina pools sized like a gateway's (POOL_* settings) and serves its own
// /metrics on JOBS_WORKER_METRICS_HOST:JOBS_WORKER_METRICS_PORT.

function fail(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve((server.address() as { port: number }).port))
  })
}

function metricsServer(registry: Registry): Server {
  return createServer(async function serveMetrics(req, res) {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n')
      return
    }
    const text = await registry.metrics()
    res.writeHead(200, { 'content-type': registry.contentType }).end(text)
  })
}

async function main(): Promise<void> {
  let config: Config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message)
    throw err
  }
  const target = redisTarget(config)
  if (!target) {
    fail(
      'The job worker needs REDIS_URL or REDIS_CLUSTER_NODES (the same as the gateways). Without Redis ' +
        'there is nothing to start: the gateway runs jobs itself.',
    )
  }
  const log = pino({
    level: config.logLevel,
    base: { component: 'job-worker' },
    serializers: errorSerializers,
  })
  // OTLP export when configured; undefined (and the SDK never imported) otherwise
  const tracing = await openTracing(config.tracing, 'anvil-job-worker', VERSION, (level, message, detail) =>
    log[level](detail, message),
  )
  // the gateway's builders (src/observability/metrics.ts, src/exec/open.ts): same process metrics, same pools
  const registry = createProcessRegistry(sourceCommit(config.commit))
  const observer = createRedisMetrics(registry)
  const { pools } = openPools(config.pools, registry)
  let consumer: Consumer | undefined
  const metrics = createJobMetrics(registry, () => consumer?.depth() ?? Promise.resolve(emptyDepth()))
  const paid = config.jobs.concurrency ?? config.pools.paid.threads
  const concurrency = { paid, free: Math.min(paid, config.pools.free.threads) }
  consumer = await startConsumer({
    target,
    pools,
    jobs: config.jobs,
    concurrency,
    metrics,
    observer,
    ...(tracing ? { tracing } : {}),
    log: (level, message, detail) => log[level](detail, message),
  }).catch((err: Error) => fail(`The job worker cannot reach ${describeTarget(target)}: ${err.message}`))
  const server = metricsServer(registry)
  const { workerMetricsPort: port, workerMetricsHost: host } = config.jobs
  const bound = await listen(server, port, host).catch((err: Error) =>
    fail(
      `Cannot serve metrics on ${host}:${port} (${err.message}); set JOBS_WORKER_METRICS_PORT (0: any free port).`,
    ),
  )

  let closing = false
  async function shutdown(signal: string): Promise<void> {
    if (closing) return
    closing = true
    log.info({ signal }, 'shutting down: finishing running jobs, handing back the rest')
    const timer = setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 5_000).unref()
    server.close()
    await consumer?.close(config.shutdownTimeoutMs)
    await pools.close()
    // last: the spans of the jobs finished above are exported before the process exits
    await tracing?.shutdown()
    clearTimeout(timer)
    process.exit(0)
  }
  process.once('SIGTERM', () => void shutdown('SIGTERM'))
  process.once('SIGINT', () => void shutdown('SIGINT'))

  const lines = [
    '',
    `Anvil job worker ${process.pid} on ${describeTarget(target)}`,
    `  queues:  paid (${concurrency.paid} at a time), free (${concurrency.free} at a time)`,
    `  metrics: http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`,
  ]
  process.stdout.write(`${lines.join('\n')}\n\n`)
}

await main()
