import { createServer, type Server } from 'node:http'
import pino from 'pino'
import type { Registry } from 'prom-client'
import { type Config, ConfigError, jobsRedisTarget, loadConfig } from '../config.ts'
import { errorSerializers } from '../observability/log-errors.ts'
import { openWorkerRuntime } from '../runtime.ts'
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
  // the gateways' jobs Redis: JOBS_REDIS_URL when set, else their store's
  const target = jobsRedisTarget(config)
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
  // everything this process opens, opened by the composition root (src/runtime.ts) and closed there
  const runtime = await openWorkerRuntime(config, target, (level, message, detail) =>
    log[level](detail, message),
  ).catch((err: Error) => fail(`The job worker cannot reach ${describeTarget(target)}: ${err.message}`))
  const server = metricsServer(runtime.registry)
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
    await runtime.close(config.shutdownTimeoutMs)
    clearTimeout(timer)
    process.exit(0)
  }
  process.once('SIGTERM', () => void shutdown('SIGTERM'))
  process.once('SIGINT', () => void shutdown('SIGINT'))

  const lines = [
    '',
    `Anvil job worker ${process.pid} on ${describeTarget(target)}`,
    `  queues:  paid (${runtime.concurrency.paid} at a time), free (${runtime.concurrency.free} at a time)`,
    `  metrics: http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`,
  ]
  process.stdout.write(`${lines.join('\n')}\n\n`)
}

await main()
