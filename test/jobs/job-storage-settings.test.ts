import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { ConfigError, jobsRedisTarget, loadConfig } from '../../src/config.ts'
import { diskBudget } from '../../src/jobs/embedded/capacity.ts'
import { maxmemoryOf, shareOf } from '../../src/jobs/redis/capacity.ts'

describe('job storage settings', () => {
  it('reads maxmemory from INFO memory; no maxmemory, no store-wide default', () => {
    const info = '# Memory\r\nused_memory:1048576\r\nmaxmemory:67108864\r\nmaxmemory_human:64.00M\r\n'
    expect(maxmemoryOf(info)).toBe(64 * 1024 * 1024)
    expect(maxmemoryOf('# Memory\r\nmaxmemory:0\r\n')).toBe(0)
    expect(maxmemoryOf('# Memory\r\nused_memory:1\r\n')).toBe(0)
    // three quarters on a Redis of their own, half on the one that decides limits
    expect(shareOf(64 * 1024 * 1024, false)).toBe(48 * 1024 * 1024)
    expect(shareOf(64 * 1024 * 1024, true)).toBe(32 * 1024 * 1024)
    expect(shareOf(3, true)).toBe(1)
    expect(shareOf(0, true)).toBeUndefined()
  })

  it('embedded: half the disk space free to DATA_DIR at boot, unless JOBS_MAX_STORAGE_BYTES says', async () => {
    const dir = tmpdir()
    const avail = Number(
      execFileSync('df', ['-B1', '--output=avail', dir], { encoding: 'utf8' }).split('\n')[1],
    )
    const budget = await diskBudget(dir, undefined)
    // df and statfs read the same counter a moment apart: within a few MiB of half of it
    expect(Math.abs(budget - avail / 2)).toBeLessThan(16 * 1024 * 1024)
    expect(await diskBudget(dir, 12_345)).toBe(12_345)
  })

  it('JOBS_REDIS_URL: the jobs Redis for gateways and workers; needs a Redis store beside it', () => {
    const base = { DATA_DIR: tmpdir() }
    const shared = loadConfig({ ...base, REDIS_URL: 'redis://limits:6379' })
    expect(jobsRedisTarget(shared)).toEqual({ url: 'redis://limits:6379' })
    expect(shared.jobs.maxStorageBytes).toBeUndefined()
    const own = loadConfig({
      ...base,
      REDIS_URL: 'redis://limits:6379',
      JOBS_REDIS_URL: 'redis://jobs:6379',
      JOBS_MAX_STORAGE_BYTES: '1048576',
    })
    expect(jobsRedisTarget(own)).toEqual({ url: 'redis://jobs:6379' })
    expect(own.jobs.maxStorageBytes).toBe(1_048_576)
    expect(jobsRedisTarget(loadConfig(base))).toBeUndefined()
    expect(() => loadConfig({ ...base, JOBS_REDIS_URL: 'redis://jobs:6379' })).toThrow(ConfigError)
    expect(() => loadConfig({ ...base, JOBS_REDIS_URL: 'redis://jobs:6379' })).toThrow(/JOBS_REDIS_URL/)
    expect(() => loadConfig({ ...base, JOBS_MAX_STORAGE_BYTES: '0' })).toThrow(/JOBS_MAX_STORAGE_BYTES/)
  })
})
