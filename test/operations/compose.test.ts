import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { splitStart, startEnv } from '../../bench/lib/shipped-env.ts'
import { envSchema, loadConfig } from '../../src/config.ts'
import { hostAllowlist } from '../../src/lib/host-allowlist.ts'
import { ROOT } from './dashboards.ts'

// There is no Docker engine here: the stack is checked for structure, and its environment against the
// configuration schema the gateway validates at boot.

interface Service {
  build?: string | { context: string; args?: Record<string, string> }
  image?: string
  pull_policy?: string
  command?: string[]
  deploy?: { replicas?: number }
  environment?: Record<string, string>
  ports?: string[]
  volumes?: string[]
  depends_on?: Record<string, { condition: string }> | string[]
  healthcheck?: { test?: string[]; disable?: boolean }
  networks?: string[]
}

const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>
  volumes: Record<string, unknown>
  networks: Record<string, { internal?: boolean; ipam?: { config?: { subnet: string }[] } }>
}
const services = compose.services
const prometheusConfig = parse(readFileSync(join(ROOT, 'prometheus', 'prometheus.yml'), 'utf8')) as {
  rule_files: string[]
  scrape_configs: {
    job_name: string
    dns_sd_configs?: { names: string[]; port: number }[]
    static_configs?: { targets: string[] }[]
  }[]
  alerting?: { alertmanagers: { static_configs?: { targets: string[] }[] }[] }
}
const ANVIL = ['gateway', 'worker'] as const

// ${VAR:?message} → a stand-in value; ${VAR:-default} → the default, as `docker compose` would
function interpolate(value: string): string {
  return value
    .replace(/\$\{[A-Z_]+:\?[^}]*\}/g, 'compose-test-token-0123456789')
    .replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')
}

function interpolateAll(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolate(String(v))]))
}

function mounts(service: Service): { source: string; target: string; readOnly: boolean }[] {
  return (service.volumes ?? []).map((v) => {
    const [source, target, mode] = v.split(':') as [string, string, string | undefined]
    return { source, target, readOnly: mode === 'ro' }
  })
}

describe('docker-compose.yml', () => {
  it('runs the gateway twice, a job worker, two Redis, Prometheus, Alertmanager and Grafana', () => {
    expect(Object.keys(services).sort()).toEqual([
      'alertmanager',
      'certificate',
      'gateway',
      'grafana',
      'prometheus',
      'redis',
      'redis-jobs',
      'worker',
    ])
    expect(services.gateway!.deploy?.replicas).toBe(2)
    expect(services.worker!.image).toBe(services.gateway!.image)
    // the image is built once (issue 43: gateway and worker each built it), passing the commit for
    // anvil_build_info to the Dockerfile's ARG; every other service on it runs it as built, never pulled
    const builders = Object.entries(services).filter(([, s]) => s.build !== undefined)
    expect(builders.map(([name]) => name)).toEqual(['certificate'])
    expect(builders[0]![1].build).toEqual({
      context: '.',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Compose variable, as written in the YAML
      args: { ANVIL_COMMIT: '${ANVIL_COMMIT:-}' },
    })
    const image = builders[0]![1].image!
    for (const [name, s] of Object.entries(services).filter(([, x]) => x.image === image && !x.build))
      expect(s.pull_policy, name).toBe('never')
    for (const name of ANVIL) expect(services[name]!.image, name).toBe(image)
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(
      /^ARG ANVIL_COMMIT=""\n[\s\S]*ANVIL_COMMIT=\$\{ANVIL_COMMIT\}/m,
    )
    // third-party images are pinned to a release
    for (const name of ['redis', 'redis-jobs', 'prometheus', 'grafana', 'alertmanager']) {
      expect(services[name]!.image, name).toMatch(/:v?[0-9][^:]*$/)
    }
  })

  it('gives each Redis an append-only file on a named volume and a health check the others wait for', () => {
    for (const [name, volume] of [
      ['redis', 'redis-data'],
      ['redis-jobs', 'redis-jobs-data'],
    ] as const) {
      const redis = services[name]!
      expect(redis.command?.join(' '), name).toMatch(/--appendonly yes/)
      expect(redis.command?.join(' '), name).toMatch(/--maxmemory \d+[kmg]b --maxmemory-policy noeviction/)
      expect(mounts(redis)).toContainEqual({ source: volume, target: '/data', readOnly: false })
      expect(redis.healthcheck?.test).toContain('ping')
      for (const anvil of ANVIL) {
        expect((services[anvil]!.depends_on as Record<string, { condition: string }>)[name], anvil).toEqual({
          condition: 'service_healthy',
        })
      }
    }
    const named = Object.values(services).flatMap((s) => mounts(s).filter((m) => !m.source.startsWith('.')))
    for (const m of named) expect(Object.keys(compose.volumes)).toContain(m.source)
  })

  it('publishes one API port per gateway replica and keeps the internal listeners off the host', () => {
    const env = services.gateway!.environment!
    const [range, container] = services.gateway!.ports![0]!.split(/:(?=[^:]+$)/) as [string, string]
    const [first, last] = range.split('-').map(Number) as [number, number]
    expect(last - first + 1).toBe(services.gateway!.deploy!.replicas)
    expect(container).toBe(env.PORT)
    const published = Object.values(services).flatMap((s) => s.ports ?? [])
    expect(published.some((p) => p.endsWith(`:${env.ADMIN_PORT}`))).toBe(false)
    // Prometheus, Alertmanager and Grafana are for operators on this machine only
    for (const name of ['prometheus', 'grafana', 'alertmanager']) {
      for (const p of services[name]!.ports ?? []) expect(p, name).toMatch(/^127\.0\.0\.1:/)
    }
  })

  it('never publishes the internal listeners, keeps them on an internal network, and checks their Host', () => {
    const gateway = services.gateway!
    const env = gateway.environment!
    // whatever the form ("9464", "9464:9464", "127.0.0.1:9464:9464", a range), only the API port
    for (const [name, s] of Object.entries(services)) {
      for (const p of s.ports ?? []) {
        const container = p.split(':').at(-1)!
        for (const internal of [env.ADMIN_PORT, services.worker!.environment!.JOBS_WORKER_METRICS_PORT])
          expect(container, `${name}: ${p}`).not.toBe(internal)
      }
    }
    expect(gateway.ports!.map((p) => p.split(':').at(-1))).toEqual([env.PORT])
    // Prometheus reaches the gateways and workers on a network that has no way out and publishes nothing
    const shared = gateway.networks!.filter((n) => services.prometheus!.networks!.includes(n))
    expect(shared.length).toBe(1)
    const internal = compose.networks[shared[0]!]!
    expect(internal.internal).toBe(true)
    for (const name of ['worker', 'redis', 'redis-jobs'])
      expect(services[name]!.networks, name).toEqual([shared[0]])
    for (const [name, s] of Object.entries(services)) {
      if (s.networks?.includes(shared[0]!) && s.ports)
        expect(s.networks.length, `${name} publishes a port, so is on a second network`).toBe(2)
    }
    // Grafana is not on it (nor anything else that does not scrape or serve it)
    expect(services.grafana!.networks).not.toContain(shared[0])
    // the Host check admits Prometheus (it scrapes by address on that network) and the CLI (loopback),
    // and nothing else: a rebinding page's own name is refused
    const subnet = internal.ipam!.config![0]!.subnet
    const config = loadConfig(interpolateAll(env))
    expect(config.adminAllowedHosts).toContain(subnet)
    const allow = hostAllowlist(config.adminAllowedHosts)
    const inside = `${subnet.split('.').slice(0, 3).join('.')}.7:${env.ADMIN_PORT}`
    expect(allow.allows(inside)).toBe(true)
    expect(allow.allows(`127.0.0.1:${env.ADMIN_PORT}`)).toBe(true)
    expect(allow.allows(`gateway:${env.ADMIN_PORT}`)).toBe(true)
    expect(allow.allows(`rebind.attacker.example:${env.ADMIN_PORT}`)).toBe(false)
    expect(allow.allows(`10.9.9.9:${env.ADMIN_PORT}`)).toBe(false)
  })

  it('sets only environment variables the configuration schema knows, with values it accepts', () => {
    const known = Object.keys(envSchema.shape)
    for (const name of ANVIL) {
      const env = services[name]!.environment!
      for (const key of Object.keys(env)) expect(known, `${name}: ${key}`).toContain(key)
      const resolved = interpolateAll(env)
      expect(() => loadConfig(resolved), name).not.toThrow()
      expect(loadConfig(resolved).redisUrl, name).toBe('redis://redis:6379')
      // job data on a Redis of its own, for gateways and workers alike (docs/jobs.md, "Job storage")
      expect(loadConfig(resolved).jobsRedisUrl, name).toBe('redis://redis-jobs:6379')
    }
    expect(loadConfig(interpolateAll(services.gateway!.environment!)).bootstrap).toBe(false)
  })

  it('runs the job worker as `npm run worker` does', () => {
    const worker = services.worker!.command!
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>
      }
    ).scripts
    expect(scripts.worker, 'package.json has a `worker` script').toEqual(expect.any(String))
    // the script sets glibc's malloc settings first (`NAME=${NAME:-value} `), which the image sets itself
    const { env, command } = splitStart(scripts.worker)
    expect(worker.join(' ')).toBe(command)
    expect(existsSync(join(ROOT, worker[1]!)), worker.join(' ')).toBe(true)
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    for (const [name, value] of Object.entries(env))
      expect(dockerfile, `the image sets ${name} as the script does`).toMatch(
        new RegExp(`^ENV ${name}=${value.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')}$`, 'm'),
      )
  })

  it('gives `npm start` and `npm run worker` the same malloc settings', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>
    }
    expect(startEnv(scripts.start)).toEqual({
      MALLOC_MMAP_THRESHOLD_: '131072',
      GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1',
    })
    expect(startEnv(scripts.worker)).toEqual(startEnv(scripts.start))
  })

  it('mounts the Prometheus config and rules, and Grafana provisioning where they are read', () => {
    for (const s of Object.values(services)) {
      for (const m of mounts(s).filter((m) => m.source.startsWith('.'))) {
        expect(existsSync(join(ROOT, m.source)), m.source).toBe(true)
        expect(m.readOnly, m.source).toBe(true)
      }
    }
    const prom = services.prometheus!
    const configDir = mounts(prom).find((m) => m.source === './prometheus')!.target
    const configFlag = prom.command!.find((c) => c.startsWith('--config.file='))!
    expect(configFlag).toBe(`--config.file=${configDir}/prometheus.yml`)
    for (const rules of prometheusConfig.rule_files)
      expect(existsSync(join(ROOT, 'prometheus', rules))).toBe(true)
    const am = services.alertmanager!
    const amDir = mounts(am).find((m) => m.source === './alertmanager')!.target
    expect(am.command).toContain(`--config.file=${amDir}/alertmanager.yml`)
    // the runbook base URL reaches prometheus.yml's external labels from the environment (Prometheus 3
    // expands it by default; the flag 2.x needed is gone, checked below)
    // unset, the links name the runbook's file and section, never a repository that is not the reader's
    // (issue 43: the default was a placeholder on GitHub)
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Compose variable, as written in the YAML
    expect(prom.environment?.ANVIL_RUNBOOK_BASE_URL).toBe('${ANVIL_RUNBOOK_BASE_URL:-docs/operations.md}')
    expect(existsSync(join(ROOT, interpolate(prom.environment!.ANVIL_RUNBOOK_BASE_URL!)))).toBe(true)

    const grafana = mounts(services.grafana!)
    expect(grafana.find((m) => m.source === './grafana/provisioning')?.target).toBe(
      '/etc/grafana/provisioning',
    )
    const provider = parse(
      readFileSync(join(ROOT, 'grafana', 'provisioning', 'dashboards', 'anvil.yml'), 'utf8'),
    ) as { providers: { options: { path: string } }[] }
    const dashboardsTarget = grafana.find((m) => m.source === './grafana/dashboards')?.target
    expect(provider.providers[0]!.options.path).toBe(dashboardsTarget)
    const datasource = parse(
      readFileSync(join(ROOT, 'grafana', 'provisioning', 'datasources', 'prometheus.yml'), 'utf8'),
    ) as { datasources: { url: string }[] }
    expect(datasource.datasources[0]!.url).toBe('http://prometheus:9090')
  })

  it('has Prometheus scrape every Anvil service on its metrics listener, reachable on the network', () => {
    const listeners = {
      gateway: ['ADMIN_HOST', 'ADMIN_PORT'],
      worker: ['JOBS_WORKER_METRICS_HOST', 'JOBS_WORKER_METRICS_PORT'],
    } as const
    for (const name of ANVIL) {
      const job = prometheusConfig.scrape_configs.find((j) => j.job_name === `anvil-${name}`)
      expect(job, name).toBeDefined()
      const sd = job!.dns_sd_configs![0]!
      expect(sd.names).toEqual([name])
      const [host, port] = listeners[name]
      expect(String(sd.port), name).toBe(services[name]!.environment![port])
      expect(services[name]!.environment![host], name).toBe('0.0.0.0')
    }
    // the worker's health check asks that same listener
    expect(services.worker!.healthcheck?.test?.join(' ')).toContain(
      `http://127.0.0.1:${services.worker!.environment!.JOBS_WORKER_METRICS_PORT}/metrics`,
    )
  })
})

// Flags each Prometheus major release removed, so a pinned image never gets one: 3.0 turned these feature
// flags into default behaviour or CLI flags of their own and refuses the three startup flags (Prometheus 3.0
// migration guide, docs/migration.md, "Flags"; CHANGELOG 3.0.0, #14640 #14643). 2.0 made every flag
// double-dash (2.0 migration guide), so a single-dash flag is refused from 2 on.
const REMOVED_PROMETHEUS_FLAGS: Record<number, { features: string[]; flags: string[] }> = {
  3: {
    features: [
      'promql-at-modifier',
      'promql-negative-offset',
      'new-service-discovery-manager',
      'expand-external-labels',
      'no-default-scrape-port',
      'agent',
      'remote-write-receiver',
      'auto-gomemlimit',
      'auto-gomaxprocs',
    ],
    flags: ['--storage.tsdb.allow-overlapping-blocks', '--alertmanager.timeout', '--storage.tsdb.retention'],
  },
}

// The services a service reaches by name: its Prometheus scrape and alerting targets, the Redis of
// REDIS_URL, Grafana's datasources, and what it waits for (depends_on)
function reaches(name: string, service: Service): Set<string> {
  const out = new Set<string>()
  const host = (target: string) => {
    const h = /^(?:\w+:\/\/)?(?:[^@/]*@)?([^:/]+)/.exec(target)?.[1]
    if (h && h !== 'localhost' && h !== '127.0.0.1') out.add(h)
  }
  if (name === 'prometheus') {
    for (const job of prometheusConfig.scrape_configs) {
      for (const sd of job.dns_sd_configs ?? []) for (const n of sd.names) host(n)
      for (const sc of job.static_configs ?? []) for (const t of sc.targets) host(t)
    }
    for (const am of prometheusConfig.alerting?.alertmanagers ?? [])
      for (const sc of am.static_configs ?? []) for (const t of sc.targets) host(t)
  }
  if (name === 'grafana') {
    const datasources = parse(
      readFileSync(join(ROOT, 'grafana', 'provisioning', 'datasources', 'prometheus.yml'), 'utf8'),
    ) as { datasources: { url: string }[] }
    for (const d of datasources.datasources) host(d.url)
  }
  for (const url of [service.environment?.REDIS_URL, service.environment?.JOBS_REDIS_URL])
    if (url) host(interpolate(url))
  // a service waited for is reached, except a one-shot one waited for to finish (an order, not a connection)
  const deps = service.depends_on ?? []
  if (Array.isArray(deps)) for (const d of deps) out.add(d)
  else
    for (const [d, { condition }] of Object.entries(deps))
      if (condition !== 'service_completed_successfully') out.add(d)
  return out
}

describe('docker-compose.yml: the services reach each other', () => {
  const networksOf = (s: Service) => s.networks ?? ['default']

  it('every service shares a network with each service it reaches (scrapes, alerts, Redis, datasources)', () => {
    const edges = Object.entries(services).flatMap(([name, s]) =>
      [...reaches(name, s)].map((to) => [name, to]),
    )
    // the edges the stack depends on were found, not assumed
    expect(edges).toEqual(
      expect.arrayContaining([
        ['prometheus', 'gateway'],
        ['prometheus', 'worker'],
        ['prometheus', 'alertmanager'],
        ['gateway', 'redis'],
        ['worker', 'redis'],
        ['gateway', 'redis-jobs'],
        ['worker', 'redis-jobs'],
        ['grafana', 'prometheus'],
      ]),
    )
    const unreachable = edges
      .filter(([from, to]) => {
        const target = services[to!]
        if (!target) return true
        return !networksOf(services[from!]!).some((n) => networksOf(target).includes(n))
      })
      .map(([from, to]) => `${from} → ${to}`)
    expect(unreachable).toEqual([])
    // every network a service names is declared (compose's own `default` aside)
    for (const [name, s] of Object.entries(services))
      for (const n of networksOf(s))
        if (n !== 'default') expect(Object.keys(compose.networks), name).toContain(n)
  })

  it('passes Prometheus no flag its pinned major version removed', () => {
    const prom = services.prometheus!
    const major = Number(/:v?(\d+)\./.exec(prom.image!)![1])
    expect(major).toBeGreaterThanOrEqual(2)
    const used = prom.command ?? []
    const features = used
      .filter((f) => f.startsWith('--enable-feature='))
      .flatMap((f) => f.slice('--enable-feature='.length).split(','))
    const problems: string[] = []
    for (const [since, removed] of Object.entries(REMOVED_PROMETHEUS_FLAGS)) {
      if (major < Number(since)) continue
      for (const f of features)
        if (removed.features.includes(f)) problems.push(`--enable-feature=${f} (removed in ${since}.0)`)
      for (const f of used)
        if (removed.flags.includes(f.split('=')[0]!)) problems.push(`${f} (removed in ${since}.0)`)
    }
    for (const f of used) if (/^-[^-]/.test(f)) problems.push(`${f} (single-dash flags were removed in 2.0)`)
    expect(problems).toEqual([])
  })

  it('the removed-flag check refuses what the issue found (expand-external-labels on v3)', () => {
    expect(REMOVED_PROMETHEUS_FLAGS[3]!.features).toContain('expand-external-labels')
    // and the documentation does not present it as needed
    expect(readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8')).not.toContain('expand-external-labels')
  })
})

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
  const lines = dockerfile.split('\n').filter((l) => l && !l.startsWith('#'))

  it('builds on Node 24 slim with production dependencies only', () => {
    const from = lines.filter((l) => l.startsWith('FROM '))
    expect(from.length).toBeGreaterThan(0)
    for (const l of from) expect(l).toMatch(/^FROM node:24-slim\b/)
    expect(dockerfile).toMatch(/npm ci --omit=dev/)
  })

  // what COPY reads is checked against the build context in build-context.test.ts
  it('runs as an unprivileged user with a health check', () => {
    const user = lines.filter((l) => l.startsWith('USER ')).at(-1)
    expect(user).toBeDefined()
    expect(user).not.toMatch(/^USER (root|0)\b/)
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\\\n\s+CMD \[/m)
    expect(dockerfile).toContain('/healthz')
    const cmd = JSON.parse(lines.find((l) => l.startsWith('CMD '))!.slice(4)) as string[]
    expect(cmd[0]).toBe('node')
    expect(existsSync(join(ROOT, cmd[1]!))).toBe(true)
  })

  it('fixes the glibc mmap threshold so large freed buffers go back to the OS (bench/diff-memory.ts)', () => {
    expect(dockerfile).toMatch(/^ENV MALLOC_MMAP_THRESHOLD_=131072$/m)
  })

  it("asks for huge pages for glibc's large blocks, which a host whose THP mode is madvise gives only then", () => {
    expect(dockerfile).toMatch(/^ENV GLIBC_TUNABLES=glibc\.malloc\.hugetlb=1$/m)
  })
})
