import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeBackends, redisUrlForDisplay } from '../../src/main/banner.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'
import { startServerProcess } from '../helpers/server-process.ts'

const run = promisify(execFile)
const ROOT = new URL('../../', import.meta.url).pathname

describe('what the banner says about the store and the job backend', () => {
  it('shows a Redis URL without its password', () => {
    expect(redisUrlForDisplay('redis://:s3cret@redis.internal:6379')).toBe('redis://redis.internal:6379')
    expect(redisUrlForDisplay('rediss://app:s3cret@redis.internal:6380/2')).toBe(
      'rediss://app@redis.internal:6380/2',
    )
    expect(redisUrlForDisplay('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379')
  })

  it('names the embedded store with its directory, and who runs jobs', () => {
    const embedded = describeBackends({
      redisUrl: undefined,
      redisClusterNodes: undefined,
      dataDir: '/var/anvil',
    })
    expect(embedded.store).toBe('embedded, /var/anvil (this gateway only)')
    expect(embedded.jobs).toContain('/var/anvil/jobs')
    const cluster = describeBackends({
      redisUrl: undefined,
      redisClusterNodes: [
        { host: 'a', port: 7000 },
        { host: 'b', port: 7001 },
      ],
      dataDir: '/x',
    })
    expect(cluster.store).toBe('Redis Cluster a:7000,b:7001 (shared by every gateway on it)')
    expect(cluster.jobs).toMatch(/BullMQ/)
  })

  it('names the jobs Redis when the jobs have their own (JOBS_REDIS_URL), without its password', () => {
    const two = describeBackends({
      redisUrl: 'redis://limits:6379',
      redisClusterNodes: undefined,
      jobsRedisUrl: 'redis://:s3cret@jobs:6379',
      dataDir: '/x',
    })
    expect(two.store).toBe('Redis redis://limits:6379 (shared by every gateway on it)')
    expect(two.jobs).toBe(
      "BullMQ queues on Redis redis://jobs:6379 (the jobs' own), run by `npm run worker` processes",
    )
    expect(two.fields).toMatchObject({ redis: 'redis://limits:6379', jobsRedis: 'redis://jobs:6379' })
    expect(JSON.stringify(two)).not.toContain('s3cret')
  })
})

describeRedis('a gateway on Redis says so, and the admin CLI finds it', () => {
  let redis: RedisServer
  let dataDir: string
  const password = 'banner-test-redis-password-42'
  const token = 'banner-test-admin-token-0123456789'
  beforeAll(async () => {
    redis = await startRedis()
    await run('redis-cli', ['-p', String(redis.port), 'CONFIG', 'SET', 'requirepass', password])
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-banner-'))
  })
  afterAll(async () => {
    await redis?.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('banner and log name Redis without its password; the CLI says where the token must come from', async () => {
    const server = await startServerProcess({
      DATA_DIR: dataDir,
      REDIS_URL: `redis://:${password}@127.0.0.1:${redis.port}`,
      ADMIN_TOKEN: token,
      BOOTSTRAP: 'false',
      LOG_LEVEL: 'info',
    })
    try {
      const out = server.output()
      expect(out).toContain(
        `  store:         Redis redis://127.0.0.1:${redis.port} (shared by every gateway on it)`,
      )
      expect(out).toContain('  jobs:          BullMQ queues on Redis, run by `npm run worker` processes')
      expect(out).not.toContain(password)

      const { ADMIN_URL: _u, ADMIN_PORT: _p, ADMIN_HOST: _h, ADMIN_TOKEN: _t, ...inherited } = process.env
      const cli = (env: Record<string, string>) =>
        run(process.execPath, ['src/main/admin-cli.ts', 'workspaces', 'list'], {
          cwd: ROOT,
          env: { ...inherited, DATA_DIR: dataDir, ...env },
        })
      // the gateway took its token from its environment, so none is saved: the CLI says so
      const refused = (await cli({}).catch((e: unknown) => e)) as { code: number; stderr: string }
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain(
        `the gateway at ${server.adminUrl} takes its token from its own ADMIN_TOKEN environment variable`,
      )
      // given the token, it reaches the listener the gateway recorded (a random port)
      const listed = JSON.parse((await cli({ ADMIN_TOKEN: token })).stdout) as { data: unknown[] }
      expect(listed.data).toEqual([])
    } finally {
      expect(await server.stop()).toBe(0)
    }
    // the log lines are written in batches, all of them by the time the process has exited
    const all = server.output()
    const listening = all
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'gateway listening')
    expect(listening).toMatchObject({
      store: 'redis',
      redis: `redis://127.0.0.1:${redis.port}`,
      jobs: 'bullmq',
    })
    expect(all).not.toContain(password)
  }, 60_000)
})
