import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { z } from 'zod'
import type { PoolsConfig } from './exec/pools.ts'
import type { JobsConfig } from './jobs/types.ts'
import { parseCidr } from './lib/cidr.ts'
import { hostAllowlist } from './lib/host-allowlist.ts'
import { type AllowedOrigins, allowedOriginsSchema } from './lib/origins.ts'
import { DEFAULT_PLANS, PLAN_NAMES, type PlanTable, planLimitsSchema } from './limits/plans.ts'
import type { RedisTarget } from './store/redis/client.ts'
import { type TracingConfig, tracingConfig, tracingEnvSchema } from './tracing/settings.ts'

const port = z.coerce.number().int().min(0).max(65535)
const positiveInt = z.coerce.number().int().min(1)
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes')

const plansOverride = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object' })
      return z.NEVER
    }
  })
  .pipe(z.partialRecord(z.enum(PLAN_NAMES), planLimitsSchema.partial()))

// Which X-Forwarded-For hops to believe: none (false), the last N (a hop count) or those sent by the
// listed proxy addresses/CIDRs. "Every hop" is refused: then any client picks its own address.
const trustProxy = z
  .string()
  .trim()
  .transform((text, ctx): false | number | string[] => {
    if (['false', 'no', '0', ''].includes(text.toLowerCase())) return false
    if (['true', 'yes', '*', 'all'].includes(text.toLowerCase())) {
      ctx.addIssue({
        code: 'custom',
        message:
          `${text} would trust every hop, so any client could choose its address with X-Forwarded-For: ` +
          'give the number of proxies in front of the gateway (e.g. 1) or their addresses/CIDRs (comma list)',
      })
      return z.NEVER
    }
    if (/^\d+$/.test(text)) return Number(text)
    const list = text.split(',').map((c) => c.trim())
    if (list.every((c) => parseCidr(c) !== undefined)) return list
    ctx.addIssue({ code: 'custom', message: 'must be a hop count or a comma list of addresses/CIDR blocks' })
    return z.NEVER
  })

const cores = availableParallelism()

// Default pool sizes: free min(cores/2, 4), paid min(cores, 8), at least 1 each. Past 8 paid threads a
// gateway does more by being one of several processes (more event loops) than by more threads behind one.
export function defaultThreads(tier: 'free' | 'paid', cores: number): number {
  return tier === 'free' ? Math.max(1, Math.min(Math.floor(cores / 2), 4)) : Math.max(1, Math.min(cores, 8))
}

function validAllowlist(hosts: string[]): boolean {
  try {
    hostAllowlist(hosts)
    return true
  } catch {
    return false
  }
}

// the internal listener answers to its loopback names, and to ADMIN_HOST unless that is a wildcard
function defaultAdminHosts(adminHost: string): string[] {
  const hosts = ['localhost', '127.0.0.1', '[::1]']
  if (adminHost === '0.0.0.0' || adminHost === '::') return hosts
  return [...hosts, adminHost.includes(':') && !adminHost.startsWith('[') ? `[${adminHost}]` : adminHost]
}

export const envSchema = z
  .object({
    PORT: port.default(8443),
    // loopback: a development gateway (and its console sign-up) is not on the LAN unless asked; the image
    // sets HOST=0.0.0.0, where the container's network is the boundary
    HOST: z.string().min(1).default('127.0.0.1'),
    ADMIN_PORT: port.default(9464),
    ADMIN_HOST: z.string().min(1).default('127.0.0.1'),
    // comma list of host names, addresses (either with :port) and CIDR blocks; default: loopback names
    ADMIN_ALLOWED_HOSTS: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((h) => h.trim())
          .filter((h) => h.length > 0),
      )
      .refine((hosts) => hosts.length > 0, 'must name at least one host')
      .refine(validAllowlist, 'must be host names, addresses (optionally :port) or CIDR blocks')
      .optional(),
    // at most 512: the Authorization header that carries it is read up to 1 KiB (src/lib/header-bounds.ts)
    ADMIN_TOKEN: z
      .string()
      .min(16, 'must be at least 16 characters')
      .max(512, 'must be at most 512 characters')
      .optional(),
    DATA_DIR: z.string().min(1).default('./.data'),
    REDIS_URL: z.url().optional(),
    REDIS_CLUSTER_NODES: z
      .string()
      .regex(/^[^,:\s]+:\d+(,[^,:\s]+:\d+)*$/, 'must be host:port,host:port,...')
      .optional(),
    REDIS_COMMAND_TIMEOUT_MS: positiveInt.default(500),
    // BullMQ's queues and the job records on a Redis of their own, out of the one that decides limits
    // (docs/jobs.md, "Job storage")
    JOBS_REDIS_URL: z.url().optional(),
    TLS_CERT_FILE: z.string().min(1).optional(),
    TLS_KEY_FILE: z.string().min(1).optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // the source commit, for anvil_build_info (the Dockerfile passes it; unset: asked of git at boot)
    ANVIL_COMMIT: z
      .union([z.literal(''), z.string().regex(/^[0-9a-f]{4,40}$/i, 'must be a git commit hash')])
      .optional(),
    // the workspace created at first start (BOOTSTRAP) is the operator's own, local development one: on a
    // plan that runs every README example (jobs, raw bodies over 1 MiB). Workspaces people create in the
    // console get CONSOLE_PLAN.
    DEFAULT_PLAN: z.enum(PLAN_NAMES).default('pro'),
    CONSOLE_PLAN: z.enum(PLAN_NAMES).default('free'),
    PLANS: plansOverride.optional(),
    KEY_CACHE_SIZE: positiveInt.default(10_000),
    KEY_CACHE_TTL_MS: positiveInt.default(30_000),
    KEY_NEGATIVE_CACHE_SIZE: positiveInt.default(10_000),
    KEY_NEGATIVE_CACHE_TTL_MS: positiveInt.default(5_000),
    INVALID_KEY_LIMIT: positiveInt.default(20),
    INVALID_KEY_WINDOW_MS: positiveInt.default(60_000),
    REQUEST_TIMEOUT_MS: positiveInt.default(60_000),
    KEEP_ALIVE_TIMEOUT_MS: positiveInt.default(75_000),
    SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
    TRUST_PROXY: trustProxy.default(false),
    BOOTSTRAP: bool.default(true),
    // capped so a many-core machine does not start dozens of warm threads (each holds ~20-30 MiB at rest;
    // cores + cores/2 was ~1.2 GB idle on 16 cores): docs/dispatch.md, "Threads and memory"
    POOL_FREE_THREADS: positiveInt.default(defaultThreads('free', cores)),
    POOL_PAID_THREADS: positiveInt.default(defaultThreads('paid', cores)),
    POOL_FREE_QUEUE: positiveInt.optional(),
    POOL_PAID_QUEUE: positiveInt.optional(),
    POOL_WARM: bool.default(true),
    POOL_ADMISSION_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
    POOL_FREE_MEMORY_MB: positiveInt.default(512),
    POOL_PAID_MEMORY_MB: positiveInt.default(2048),
    // admission by memory: the off-heap bytes the hashes running on a tier may hold at once (argon2, scrypt)
    POOL_FREE_OFFHEAP_MB: positiveInt.default(512),
    POOL_PAID_OFFHEAP_MB: positiveInt.default(2048),
    DEDICATED_POOLS: z
      .string()
      .regex(/^ws_[0-9A-Za-z]+:\d+(,ws_[0-9A-Za-z]+:\d+)*$/, 'must be ws_id:threads,ws_id:threads,...')
      .optional(),
    // async jobs (src/jobs/, docs/jobs.md)
    JOBS_RESULT_TTL_SECONDS: positiveInt.default(86_400),
    JOBS_CONCURRENCY: positiveInt.optional(),
    JOBS_STALLED_INTERVAL_MS: positiveInt.default(30_000),
    JOBS_PROGRESS_INTERVAL_MS: positiveInt.default(250),
    JOBS_WORKER_METRICS_PORT: port.default(9465),
    JOBS_WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    // the store-wide budget for job data; unset: a share of the jobs Redis's maxmemory, or of the disk
    JOBS_MAX_STORAGE_BYTES: positiveInt.optional(),
    // Idempotency-Key records: how long a create's response is replayed (src/http/hooks/idempotency.ts)
    IDEMPOTENCY_TTL_SECONDS: positiveInt.default(86_400),
    // a kept answer's body over this is kept as its digest; what one scope's answers may weigh
    IDEMPOTENCY_MAX_ANSWER_BYTES: positiveInt.default(16 * 1024),
    IDEMPOTENCY_MAX_SCOPE_BYTES: positiveInt.default(4 * 1024 * 1024),
    // developer console (src/http/console/)
    CONSOLE_MAX_WORKSPACES: positiveInt.default(10),
    // browsers allowed to call /v1 cross-origin (src/http/hooks/cors.ts)
    CORS_ALLOWED_ORIGINS: allowedOriginsSchema.default([]),
    // OpenTelemetry tracing (src/tracing/, docs/operations.md#tracing)
    ...tracingEnvSchema,
  })
  .refine((env) => (env.TLS_CERT_FILE === undefined) === (env.TLS_KEY_FILE === undefined), {
    message: 'TLS_CERT_FILE and TLS_KEY_FILE must be set together',
    path: ['TLS_CERT_FILE'],
  })
  .refine((env) => !(env.REDIS_URL && env.REDIS_CLUSTER_NODES), {
    message: 'set REDIS_URL or REDIS_CLUSTER_NODES, not both',
    path: ['REDIS_URL'],
  })
  .refine((env) => !env.JOBS_REDIS_URL || env.REDIS_URL || env.REDIS_CLUSTER_NODES, {
    message: 'needs REDIS_URL or REDIS_CLUSTER_NODES (the embedded store runs its jobs itself)',
    path: ['JOBS_REDIS_URL'],
  })

export interface Config {
  port: number
  host: string
  adminPort: number
  adminHost: string
  // Host header values the internal listener answers (DNS-rebinding defence): names, addresses, CIDRs
  adminAllowedHosts: string[]
  adminToken: string | undefined
  dataDir: string
  redisUrl: string | undefined
  redisClusterNodes: { host: string; port: number }[] | undefined
  // the jobs' own Redis (BullMQ and job records); undefined: they share the store's
  jobsRedisUrl: string | undefined
  // a Redis call in the request path that takes longer answers 503 ERR_UNAVAILABLE
  redisCommandTimeoutMs: number
  tls: { certFile: string; keyFile: string } | undefined
  logLevel: string
  commit: string | undefined
  defaultPlan: (typeof PLAN_NAMES)[number]
  consolePlan: (typeof PLAN_NAMES)[number]
  // workspaces one console user may own (sign-up's first one included)
  consoleMaxWorkspaces: number
  plans: PlanTable
  keyCache: { size: number; ttlMs: number; negativeSize: number; negativeTtlMs: number }
  // invalid-key attempts per client address per window, counted in each gateway's own memory
  invalidKeys: { max: number; windowMs: number }
  requestTimeoutMs: number
  // how long an idle connection stays open (HTTP/1.1 keep-alive, HTTP/2 session): above a load balancer's
  // idle timeout, so the balancer always closes first and never reuses a connection the gateway just closed
  keepAliveTimeoutMs: number
  shutdownTimeoutMs: number
  // Fastify's trustProxy: false, a hop count, or the trusted proxies' addresses/CIDRs
  trustProxy: false | number | string[]
  bootstrap: boolean
  // origins whose pages may call /v1 from a browser; "*" any (never with credentials); empty: none
  corsAllowedOrigins: AllowedOrigins
  // how long a response kept under an Idempotency-Key is replayed
  idempotencyTtlSeconds: number
  // what an Idempotency-Key record may hold: one answer's body, and all the answers of one scope
  idempotencyMaxAnswerBytes: number
  idempotencyMaxScopeBytes: number
  pools: PoolsConfig
  jobs: JobsConfig
  // OTLP trace export; undefined: tracing off (no OpenTelemetry module is loaded)
  tracing: TracingConfig | undefined
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

// Parses the environment once; a bad value names its variable in the message.
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(environment)'}: ${i.message}`)
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`)
  }
  const e = parsed.data
  const plans = structuredClone(DEFAULT_PLANS)
  for (const [name, patch] of Object.entries(e.PLANS ?? {})) {
    Object.assign(plans[name as keyof PlanTable], patch)
  }
  return {
    port: e.PORT,
    host: e.HOST,
    adminPort: e.ADMIN_PORT,
    adminHost: e.ADMIN_HOST,
    adminAllowedHosts: e.ADMIN_ALLOWED_HOSTS ?? defaultAdminHosts(e.ADMIN_HOST),
    adminToken: e.ADMIN_TOKEN,
    dataDir: resolve(e.DATA_DIR),
    redisUrl: e.REDIS_URL,
    redisClusterNodes: e.REDIS_CLUSTER_NODES?.split(',').map((hp) => {
      const [host, p] = hp.split(':') as [string, string]
      return { host, port: Number(p) }
    }),
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    jobsRedisUrl: e.JOBS_REDIS_URL,
    tls:
      e.TLS_CERT_FILE && e.TLS_KEY_FILE ? { certFile: e.TLS_CERT_FILE, keyFile: e.TLS_KEY_FILE } : undefined,
    logLevel: e.LOG_LEVEL,
    commit: e.ANVIL_COMMIT || undefined,
    defaultPlan: e.DEFAULT_PLAN,
    consolePlan: e.CONSOLE_PLAN,
    consoleMaxWorkspaces: e.CONSOLE_MAX_WORKSPACES,
    plans,
    keyCache: {
      size: e.KEY_CACHE_SIZE,
      ttlMs: e.KEY_CACHE_TTL_MS,
      negativeSize: e.KEY_NEGATIVE_CACHE_SIZE,
      negativeTtlMs: e.KEY_NEGATIVE_CACHE_TTL_MS,
    },
    invalidKeys: { max: e.INVALID_KEY_LIMIT, windowMs: e.INVALID_KEY_WINDOW_MS },
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    trustProxy: e.TRUST_PROXY,
    bootstrap: e.BOOTSTRAP,
    corsAllowedOrigins: e.CORS_ALLOWED_ORIGINS,
    idempotencyTtlSeconds: e.IDEMPOTENCY_TTL_SECONDS,
    idempotencyMaxAnswerBytes: e.IDEMPOTENCY_MAX_ANSWER_BYTES,
    idempotencyMaxScopeBytes: e.IDEMPOTENCY_MAX_SCOPE_BYTES,
    pools: {
      warm: e.POOL_WARM,
      admissionWaitMs: e.POOL_ADMISSION_WAIT_MS,
      free: {
        threads: e.POOL_FREE_THREADS,
        queue: e.POOL_FREE_QUEUE ?? e.POOL_FREE_THREADS * 8,
        memoryMb: e.POOL_FREE_MEMORY_MB,
        offHeapMb: e.POOL_FREE_OFFHEAP_MB,
      },
      paid: {
        threads: e.POOL_PAID_THREADS,
        queue: e.POOL_PAID_QUEUE ?? e.POOL_PAID_THREADS * 16,
        memoryMb: e.POOL_PAID_MEMORY_MB,
        offHeapMb: e.POOL_PAID_OFFHEAP_MB,
      },
      dedicated: Object.fromEntries(
        (e.DEDICATED_POOLS?.split(',') ?? []).map((entry) => {
          const [id, threads] = entry.split(':') as [string, string]
          return [id, Number(threads)]
        }),
      ),
    },
    jobs: {
      resultTtlSeconds: e.JOBS_RESULT_TTL_SECONDS,
      concurrency: e.JOBS_CONCURRENCY,
      stalledIntervalMs: e.JOBS_STALLED_INTERVAL_MS,
      progressIntervalMs: e.JOBS_PROGRESS_INTERVAL_MS,
      workerMetricsPort: e.JOBS_WORKER_METRICS_PORT,
      workerMetricsHost: e.JOBS_WORKER_METRICS_HOST,
      maxStorageBytes: e.JOBS_MAX_STORAGE_BYTES,
    },
    tracing: tracingConfig(e),
  }
}

// REDIS_URL → one Redis, REDIS_CLUSTER_NODES → a Redis Cluster, neither → the embedded store (and
// embedded jobs): decided here once, and handed to the store, the account store and the jobs.
export function redisTarget(config: Pick<Config, 'redisUrl' | 'redisClusterNodes'>): RedisTarget | undefined {
  if (config.redisUrl) return { url: config.redisUrl }
  if (config.redisClusterNodes) return { clusterNodes: config.redisClusterNodes }
  return undefined
}

// Where jobs are queued and kept: JOBS_REDIS_URL, else the store's Redis, else (undefined) in process.
export function jobsRedisTarget(
  config: Pick<Config, 'redisUrl' | 'redisClusterNodes' | 'jobsRedisUrl'>,
): RedisTarget | undefined {
  if (config.jobsRedisUrl) return { url: config.jobsRedisUrl }
  return redisTarget(config)
}
