import { join } from 'node:path'
import type { Config } from '../config.ts'

// What the start banner (and the boot log line) says about where state lives and who runs jobs, so an
// operator can tell an embedded gateway from one on Redis at a glance. Never a secret: a Redis URL is shown
// without its password.

export function redisUrlForDisplay(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = ''
    return u.href.replace(/\/$/, '')
  } catch {
    // config validation accepted it as a URL; this is only for a value it could not re-read
    return url.replace(/\/\/[^@/]*@/, '//')
  }
}

export interface Backends {
  store: string
  jobs: string
  // for the boot log line: labels, not prose
  fields: {
    store: 'embedded' | 'redis' | 'redis-cluster'
    redis?: string
    jobs: 'embedded' | 'bullmq'
    jobsRedis?: string
  }
}

export function describeBackends(
  config: Pick<Config, 'redisUrl' | 'redisClusterNodes' | 'dataDir'> & Partial<Pick<Config, 'jobsRedisUrl'>>,
): Backends {
  const backends = describeStore(config)
  if (!config.jobsRedisUrl || backends.fields.jobs !== 'bullmq') return backends
  // the jobs on a Redis of their own (JOBS_REDIS_URL), out of the one that decides limits
  const jobsRedis = redisUrlForDisplay(config.jobsRedisUrl)
  return {
    ...backends,
    jobs: `BullMQ queues on Redis ${jobsRedis} (the jobs' own), run by \`npm run worker\` processes`,
    fields: { ...backends.fields, jobsRedis },
  }
}

function describeStore(config: Pick<Config, 'redisUrl' | 'redisClusterNodes' | 'dataDir'>): Backends {
  if (config.redisUrl) {
    const redis = redisUrlForDisplay(config.redisUrl)
    return {
      store: `Redis ${redis} (shared by every gateway on it)`,
      jobs: 'BullMQ queues on Redis, run by `npm run worker` processes',
      fields: { store: 'redis', redis, jobs: 'bullmq' },
    }
  }
  if (config.redisClusterNodes) {
    const redis = config.redisClusterNodes.map((n) => `${n.host}:${n.port}`).join(',')
    return {
      store: `Redis Cluster ${redis} (shared by every gateway on it)`,
      jobs: 'BullMQ queues on the Redis Cluster, run by `npm run worker` processes',
      fields: { store: 'redis-cluster', redis, jobs: 'bullmq' },
    }
  }
  return {
    store: `embedded, ${config.dataDir} (this gateway only)`,
    jobs: `run by this gateway on its pools, kept in ${join(config.dataDir, 'jobs')}`,
    fields: { store: 'embedded', jobs: 'embedded' },
  }
}
