import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis'

export type RedisTarget = { url: string } | { clusterNodes: { host: string; port: number }[] }

export interface ConnectionPolicy {
  connectTimeoutMs: number
  commandTimeoutMs: number
  // reconnection backoff doubles from 50 ms up to this
  maxBackoffMs: number
}

export const DEFAULT_POLICY: ConnectionPolicy = {
  connectTimeoutMs: 1_000,
  commandTimeoutMs: 500,
  maxBackoffMs: 500,
}

// The limit decisions are batched by the store itself (consume-batch.ts), and sent as soon as a batch is
// made: ioredis's auto-pipelining would hold it back behind the connection's pipeline in flight.
const NOT_AUTO_PIPELINED = ['anvilConsume']

// The outage policy lives here: no offline queue and no retries of in-flight commands, so while Redis
// is unreachable every command fails at once (or after commandTimeout when the socket hangs) and the
// API answers 503 instead of queueing requests; reconnection runs in the background with capped backoff.
function nodeOptions(policy: ConnectionPolicy): RedisOptions {
  return {
    connectTimeout: policy.connectTimeoutMs,
    commandTimeout: policy.commandTimeoutMs,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    enableReadyCheck: true,
    keepAlive: 10_000,
  }
}

function backoff(policy: ConnectionPolicy): (times: number) => number {
  return (times) => Math.min(50 * 2 ** Math.min(times - 1, 10), policy.maxBackoffMs)
}

export function createClient(target: RedisTarget, policy: ConnectionPolicy): Redis | Cluster {
  if ('url' in target) {
    return new Redis(target.url, {
      ...nodeOptions(policy),
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      autoPipeliningIgnoredCommands: NOT_AUTO_PIPELINED,
      retryStrategy: backoff(policy),
      lazyConnect: true,
    })
  }
  const options: ClusterOptions = {
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    autoPipeliningIgnoredCommands: NOT_AUTO_PIPELINED,
    scaleReads: 'master',
    clusterRetryStrategy: backoff(policy),
    // redirections and failover retries are bounded too, so no request waits on a dead slot for long
    maxRedirections: 4,
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    slotsRefreshTimeout: policy.connectTimeoutMs,
    lazyConnect: true,
    redisOptions: nodeOptions(policy),
  }
  return new Cluster(target.clusterNodes, options)
}

// A plain connection for SUBSCRIBE. On a cluster, classic PUBLISH reaches every node, so subscribing on
// any one of them hears everything; `pick` rotates through the nodes when one stops answering.
export function createSubscriber(
  target: RedisTarget,
  policy: ConnectionPolicy,
  pick: () => { host: string; port: number },
): Redis {
  const options: RedisOptions = {
    ...nodeOptions(policy),
    commandTimeout: undefined,
    enableOfflineQueue: false,
    autoResubscribe: false,
    lazyConnect: true,
  }
  if ('url' in target) return new Redis(target.url, { ...options, retryStrategy: backoff(policy) })
  // on a cluster, give up on a node after a few attempts; the owner then moves to the next node
  const retry = backoff(policy)
  return new Redis({ ...options, ...pick(), retryStrategy: (times) => (times > 3 ? null : retry(times)) })
}

export function describeTarget(target: RedisTarget): string {
  if ('clusterNodes' in target)
    return `cluster ${target.clusterNodes.map((n) => `${n.host}:${n.port}`).join(',')}`
  // never print credentials from the URL
  const u = new URL(target.url)
  return `${u.protocol}//${u.hostname}:${u.port || '6379'}`
}
