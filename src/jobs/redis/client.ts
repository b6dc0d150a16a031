import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis'
import type { RedisTarget } from '../../store/redis/client.ts'

// producer (a gateway): fails fast while Redis is away, so submissions answer 503 instead of hanging, yet
// gives a large body time to travel. worker (npm run worker): waits outages out, as BullMQ's workers need.
export type JobsClientRole = 'producer' | 'worker'

function nodeOptions(role: JobsClientRole): RedisOptions {
  const backoff = (times: number) =>
    Math.min(50 * 2 ** Math.min(times - 1, 10), role === 'worker' ? 2_000 : 500)
  if (role === 'worker') return { maxRetriesPerRequest: null, retryStrategy: backoff, keepAlive: 10_000 }
  return {
    connectTimeout: 1_000,
    commandTimeout: 15_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: backoff,
    keepAlive: 10_000,
  }
}

// A connection of its own: the store's client has a 500 ms command timeout sized for the request path.
export async function connectJobsClient(target: RedisTarget, role: JobsClientRole): Promise<Redis | Cluster> {
  const options = nodeOptions(role)
  let client: Redis | Cluster
  if ('url' in target) {
    client = new Redis(target.url, { ...options, lazyConnect: true })
  } else {
    const { retryStrategy, enableOfflineQueue, ...redisOptions } = options
    const cluster: ClusterOptions = {
      redisOptions,
      scaleReads: 'master',
      clusterRetryStrategy: retryStrategy as ClusterOptions['clusterRetryStrategy'],
      enableOfflineQueue: enableOfflineQueue ?? true,
      lazyConnect: true,
    }
    client = new Cluster(target.clusterNodes, cluster)
  }
  // connection errors are reported by whoever uses the client (503s, the worker's log); keep them quiet here
  let lastError: Error | undefined
  client.on('error', (err: Error) => {
    lastError = err
  })
  await client.connect().catch((err: unknown) => {
    client.disconnect()
    // the socket's own error (ECONNREFUSED, ...) says more than ioredis's "Connection is closed"
    throw lastError ?? err
  })
  return client
}
