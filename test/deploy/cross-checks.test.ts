import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { splitStart } from '../../bench/lib/shipped-env.ts'
import { type Config, envSchema, loadConfig } from '../../src/config.ts'
import { createJobMetrics } from '../../src/jobs/metrics.ts'
import { DEPTH_STATES, emptyDepth, JOB_BUDGET_FACTOR, TIERS } from '../../src/jobs/types.ts'
import { hostAllowlist } from '../../src/lib/host-allowlist.ts'
import { DEFAULT_PLANS, opCaps, type PlanName } from '../../src/limits/plans.ts'
import { CATALOG } from '../../src/ops/catalog.ts'
import type { Manifest } from './kustomize.ts'
import {
  build,
  type Container,
  container,
  find,
  OVERLAYS,
  podSpec,
  portNumber,
  quantity,
  resolvedEnv,
} from './manifests.ts'
import { IMAGE_CMD, imageEnv, imageUser, ROOT } from './sandbox.ts'

// The manifests read together with the code they run: the configuration schema, the listeners, the drain
// the processes do on SIGTERM, the metric the workers scale on, the image's command and user, and the
// sizing figures in docs/dispatch.md.

const SECRETS = {
  'anvil-admin/token': 'cross-check-admin-token-0123456789',
  'anvil-redis/url': 'redis://redis.example:6379',
  'anvil-redis/cluster-nodes': 'redis-0.example:6379,redis-1.example:6379',
}
const WORKLOADS = [
  ['anvil-gateway', 'gateway'],
  ['anvil-worker', 'worker'],
] as const

function read(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8')
}

function configOf(c: Container): Config {
  return loadConfig(resolvedEnv(c, SECRETS))
}

function env(c: Container, name: string): string | undefined {
  return c.env?.find((e) => e.name === name)?.value
}

// the "now" column of a row of docs/dispatch.md's memory table, in MiB
function restFigure(row: string): number {
  const line = read('docs/dispatch.md')
    .split('\n')
    .find((l) => l.startsWith(`| ${row} |`))
  if (!line) throw new Error(`docs/dispatch.md has no row "${row}"`)
  const now = line.split('|').map((c) => c.trim())[4]!
  return Number(/([\d.]+) MiB/.exec(now)![1])
}

describe('manifests and code, read together', () => {
  for (const o of OVERLAYS) {
    const manifests = build(o)
    const gateway = container(find(manifests, 'Deployment', 'anvil-gateway'))
    const worker = container(find(manifests, 'Deployment', 'anvil-worker'))

    it(`${o}: sets only variables src/config.ts knows, with values it accepts, and every one a cluster needs`, () => {
      const known = Object.keys(envSchema.shape)
      for (const [, name] of WORKLOADS) {
        const c = name === 'gateway' ? gateway : worker
        for (const v of c.env ?? []) expect(known, `${name}: ${v.name}`).toContain(v.name)
        const config = configOf(c)
        // the shared store (REDIS_URL or REDIS_CLUSTER_NODES): without it a gateway would keep its own
        // embedded store, and a worker does not start
        expect(config.redisUrl ?? config.redisClusterNodes, name).toBeDefined()
      }
      const g = configOf(gateway)
      // one admin token for every replica, from a Secret; workspaces from the admin CLI, never a race
      expect(g.adminToken).toBe(SECRETS['anvil-admin/token'])
      expect(g.bootstrap).toBe(false)
      // both listeners reachable from outside the pod (load balancer, kubelet, Prometheus)
      expect(g.host).toBe('0.0.0.0')
      expect(g.adminHost).toBe('0.0.0.0')
      expect(configOf(worker).jobs.workerMetricsHost).toBe('0.0.0.0')
    })

    it(`${o}: the ports and probes name the listeners the configuration opens`, () => {
      const g = configOf(gateway)
      expect(portNumber(gateway, 'https')).toBe(g.port)
      expect(portNumber(gateway, 'admin')).toBe(g.adminPort)
      expect(portNumber(worker, 'metrics')).toBe(configOf(worker).jobs.workerMetricsPort)
      for (const probe of [gateway.startupProbe, gateway.readinessProbe, gateway.livenessProbe]) {
        // the API listener is always TLS (self-signed, or the anvil-tls certificate)
        expect(probe?.httpGet).toMatchObject({ port: 'https', scheme: 'HTTPS' })
      }
      expect(gateway.startupProbe?.httpGet?.path).toBe('/readyz')
      expect(gateway.readinessProbe?.httpGet?.path).toBe('/readyz')
      expect(gateway.livenessProbe?.httpGet?.path).toBe('/healthz')
      for (const probe of [worker.startupProbe, worker.readinessProbe, worker.livenessProbe]) {
        expect(probe?.httpGet).toMatchObject({ path: '/metrics', port: 'metrics' })
      }
      // the routes the probes name are the gateway's own (test/deploy/read-only-root.test.ts asks them)
      expect(read('src/http/meta/meta.ts')).toMatch(/url: '\/healthz'[\s\S]*url: '\/readyz'/)
      expect(read('src/main/job-worker.ts')).toContain("req.url !== '/metrics'")
    })

    it(`${o}: DATA_DIR is the gateway's data volume, where the image puts it`, () => {
      const g = configOf(gateway)
      const mount = gateway.volumeMounts?.find((m) => m.name === 'data')
      expect(mount?.mountPath).toBe(g.dataDir)
      expect(imageEnv().DATA_DIR).toBe(g.dataDir)
      const volume = podSpec(find(manifests, 'Deployment', 'anvil-gateway')).volumes?.find(
        (v) => v.name === 'data',
      )
      expect(volume?.emptyDir).toBeDefined()
    })

    it(`${o}: each grace period outlasts its process's drain, and a worker's drain the longest job`, () => {
      // gateway: the preStop pause, then SIGTERM: a drain that gives up after SHUTDOWN_TIMEOUT_MS
      expect(read('src/main/gateway.ts')).toMatch(/process\.exit\(1\)\n\s*\}, config\.shutdownTimeoutMs\)/)
      const gSpec = podSpec(find(manifests, 'Deployment', 'anvil-gateway'))
      const preStop = gateway.lifecycle?.preStop?.sleep?.seconds ?? 0
      expect(preStop).toBeGreaterThan(0)
      expect(gSpec.terminationGracePeriodSeconds! * 1000).toBeGreaterThan(
        preStop * 1000 + configOf(gateway).shutdownTimeoutMs,
      )
      // worker: running jobs get SHUTDOWN_TIMEOUT_MS, the process exits by itself a margin later
      const margin = /config\.shutdownTimeoutMs \+ ([\d_]+)\)/.exec(read('src/main/job-worker.ts'))
      expect(margin).not.toBeNull()
      const w = configOf(worker)
      const wSpec = podSpec(find(manifests, 'Deployment', 'anvil-worker'))
      expect(wSpec.terminationGracePeriodSeconds! * 1000).toBeGreaterThan(
        w.shutdownTimeoutMs + Number(margin![1]!.replaceAll('_', '')),
      )
      // a job has no checkpoint: one handed back runs again from the start, so the drain lets the longest
      // one (the largest plan budget times the job factor, PLANS overrides included) finish
      const longest = Math.max(...Object.values(w.plans).map((p) => p.compute_budget_ms)) * JOB_BUDGET_FACTOR
      expect(w.shutdownTimeoutMs).toBeGreaterThanOrEqual(longest)
    })

    it(`${o}: the gateways' disruption budget leaves one running, and their HPA scales on the CPU they request`, () => {
      const hpa = find(manifests, 'HorizontalPodAutoscaler', 'anvil-gateway').spec as {
        minReplicas: number
        metrics: { resource: { name: string } }[]
      }
      const pdb = find(manifests, 'PodDisruptionBudget', 'anvil-gateway').spec as { maxUnavailable: number }
      if (hpa.minReplicas > 1) expect(pdb.maxUnavailable).toBeLessThan(hpa.minReplicas)
      expect(hpa.metrics.map((m) => m.resource.name)).toEqual(['cpu'])
      expect(gateway.resources?.requests?.cpu).toBeDefined()
    })

    it(`${o}: the image's command, user and group are the ones the manifests run`, () => {
      const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts
      const command = (script: string) => splitStart(script).command
      // the gateway runs the image's CMD, which is `npm start`'s command
      expect(gateway.command).toBeUndefined()
      expect(gateway.args).toBeUndefined()
      expect(IMAGE_CMD.join(' ')).toBe(command(scripts.start!))
      expect(worker.command?.join(' ')).toBe(command(scripts.worker!))
      for (const [name] of WORKLOADS) {
        const pod = podSpec(find(manifests, 'Deployment', name)).securityContext as Record<string, number>
        expect({ uid: pod.runAsUser, gid: pod.runAsGroup }).toEqual(imageUser())
        expect(pod.fsGroup).toBe(imageUser().gid)
      }
    })

    it(`${o}: resources hold what the pools may use (docs/dispatch.md's figures)`, () => {
      const idle = restFigure('idle RSS, gateway without pool threads')
      const perThread = restFigure('RSS each warm pool thread adds (2 + 2 warm threads)')
      for (const c of [gateway, worker]) {
        const { pools } = configOf(c)
        const threads = pools.free.threads + pools.paid.threads
        const MiB = 2 ** 20
        // at rest: the process and its warm threads
        expect(quantity(c.resources!.requests!.memory!)).toBeGreaterThanOrEqual(
          (idle + threads * perThread) * MiB,
        )
        // at worst: every thread at its heap cap plus its 32 MiB young generation, the memory the pools'
        // gates admit outside the heap (argon2's and scrypt's blocks: POOL_*_OFFHEAP_MB), and 256 MiB of
        // bodies and answers on the event loop, so V8 or the gate refuses the one task before the kernel
        // kills the pod
        const worst =
          idle +
          pools.free.threads * (pools.free.memoryMb + 32) +
          pools.paid.threads * (pools.paid.memoryMb + 32) +
          pools.free.offHeapMb +
          pools.paid.offHeapMb +
          256
        expect(quantity(c.resources!.limits!.memory!), c.name).toBeGreaterThanOrEqual(worst * MiB)
        // one core per thread that computes, and the event loop's
        expect(quantity(c.resources!.limits!.cpu!), c.name).toBeGreaterThanOrEqual(pools.paid.threads + 1)
      }
    })

    it(`${o}: the gateway's off-heap budgets admit the largest hash each plan may ask (none is refused outright)`, () => {
      const { pools } = configOf(gateway)
      const MiB = 2 ** 20
      // the largest argon2 and scrypt hashes each plan allows, weighed by password.hash's own model
      const hash = CATALOG.named('password.hash')!
      const largest = (plans: PlanName[]) =>
        Math.max(
          ...plans.flatMap((plan) => {
            const caps = opCaps(hash, DEFAULT_PLANS[plan])
            const weigh = (body: unknown) => hash.cost.memoryBytes!(body)
            const nr = caps.password_scrypt_n_r!
            return [
              weigh({ algorithm: 'argon2id', params: { memory_kib: caps.password_argon2_memory_kib } }),
              weigh({
                algorithm: 'scrypt',
                params: {
                  log2_n: Math.log2(nr / 8),
                  block_size: 8,
                  parallelism: Math.floor(caps.password_scrypt_n_r_p! / nr),
                },
              }),
            ]
          }),
        )
      expect(largest(['free'])).toBeGreaterThan(0)
      expect(pools.free.offHeapMb * MiB).toBeGreaterThanOrEqual(largest(['free']))
      expect(pools.paid.offHeapMb * MiB).toBeGreaterThanOrEqual(largest(['pro', 'business']))
    })

    it(`${o}: the internal listener answers Prometheus by pod address and the admin CLI, and no rebinding name`, () => {
      const allow = hostAllowlist(configOf(gateway).adminAllowedHosts)
      const port = portNumber(gateway, 'admin')
      for (const host of [
        '10.244.3.17',
        '172.20.0.5',
        '192.168.1.9',
        '100.64.8.2',
        '127.0.0.1',
        'localhost',
      ]) {
        expect(allow.allows(`${host}:${port}`), host).toBe(true)
      }
      expect(allow.allows(`anvil-gateway-admin:${port}`)).toBe(true)
      expect(allow.allows(`rebind.attacker.example:${port}`)).toBe(false)
      expect(allow.allows(`8.8.8.8:${port}`)).toBe(false)
    })
  }

  it('scales workers on the queue-depth gauge by the jobs each worker runs at once', async () => {
    const registry = new Registry()
    createJobMetrics(registry, async () => emptyDepth())
    const gauge = (await registry.getMetricsAsJSON()).find((m) => m.name === 'anvil_jobs_queue_depth')
    expect(gauge).toBeDefined()
    for (const o of OVERLAYS) {
      const manifests = build(o)
      const perWorker = Number(
        env(container(find(manifests, 'Deployment', 'anvil-worker')), 'JOBS_CONCURRENCY'),
      )
      const scalers = manifests.filter((m) => m.metadata.name === 'anvil-worker')
      const keda = scalers.find((m) => m.kind === 'ScaledObject')
      const hpa = scalers.find((m) => m.kind === 'HorizontalPodAutoscaler')
      if (o === 'trial') {
        expect(keda ?? hpa).toBeUndefined()
        continue
      }
      expect(Number(!!keda) + Number(!!hpa), o).toBe(1)
      if (keda) {
        const trigger = (keda.spec as { triggers: { type: string; metadata: Record<string, string> }[] })
          .triggers[0]!
        expect(trigger.type).toBe('prometheus')
        expect(Number(trigger.metadata.threshold)).toBe(perWorker)
        const query = trigger.metadata.query!
        expect(query).toContain('anvil_jobs_queue_depth{')
        // the namespace matcher is the overlay's own namespace
        expect(/namespace="([^"]+)"/.exec(query)?.[1]).toBe(keda.metadata.namespace)
        const states = /state=~"([^"]+)"/.exec(query)![1]!.split('|')
        for (const s of states) expect(DEPTH_STATES).toContain(s)
        expect(states.sort()).toEqual(['active', 'waiting'])
      }
      if (hpa) {
        const metric = (
          hpa.spec as {
            metrics: {
              type: string
              external: { metric: { name: string }; target: { averageValue: string } }
            }[]
          }
        ).metrics[0]!
        expect(metric.type).toBe('External')
        expect(Number(metric.external.target.averageValue)).toBe(perWorker)
        const rules = parse(
          read('deploy/kubernetes/components/worker-hpa/prometheus-adapter-rules.yaml'),
        ) as {
          rules: { external: { seriesQuery: string; name: { as: string } }[] }
        }
        const rule = rules.rules.external.find((r) => r.name.as === metric.external.metric.name)
        expect(rule?.seriesQuery).toMatch(/^anvil_jobs_queue_depth\{/)
      }
    }
    expect([...TIERS]).toEqual(['paid', 'free'])
  })

  it('scrapes under the job names the alert rules and the compose stack use', () => {
    const jobs = (m: Manifest) =>
      (
        m.spec as { endpoints: { relabelings: { targetLabel: string; replacement: string }[] }[] }
      ).endpoints.flatMap((e) =>
        e.relabelings.filter((r) => r.targetLabel === 'job').map((r) => r.replacement),
      )
    const compose = (
      parse(read('prometheus/prometheus.yml')) as { scrape_configs: { job_name: string }[] }
    ).scrape_configs.map((s) => s.job_name)
    for (const o of OVERLAYS.filter((x) => x !== 'trial')) {
      const names = build(o)
        .filter((m) => m.kind === 'ServiceMonitor')
        .flatMap(jobs)
        .sort()
      expect(names).toEqual(['anvil-gateway', 'anvil-worker'])
      for (const n of names) expect(compose).toContain(n)
      expect(read('prometheus/alerts.yml')).toContain('up{job=~"anvil-gateway|anvil-worker"}')
    }
  })

  it('gives the trial the compose stack’s Redis, reached at the URL its Secret holds', () => {
    const manifests = build('trial')
    const redis = container(find(manifests, 'StatefulSet', 'anvil-redis'))
    const compose = (
      parse(read('docker-compose.yml'), { merge: true }) as {
        services: Record<string, { image: string; command: string[] }>
      }
    ).services.redis!
    expect(redis.image).toBe(compose.image)
    // the same flags but the memory budget, sized to the trial's pod
    const flags = (args: string[]) => args.filter((_a, i) => args[i - 1] !== '--maxmemory')
    expect(flags(redis.command!)).toEqual(flags(compose.command))
    const url = new URL((find(manifests, 'Secret', 'anvil-redis').stringData as { url: string }).url)
    const svc = find(manifests, 'Service', 'anvil-redis').spec as { ports: { port: number }[] }
    expect(url.hostname).toBe('anvil-redis')
    expect(Number(url.port)).toBe(svc.ports[0]!.port)
    // the image's redis user (uid 999, group 1000 in redis:*-alpine)
    const pod = podSpec(find(manifests, 'StatefulSet', 'anvil-redis')).securityContext as Record<
      string,
      number
    >
    expect([pod.runAsUser, pod.runAsGroup]).toEqual([999, 1000])
  })

  it('reads the certificate from the anvil-tls Secret where the TLS variables point', () => {
    for (const o of OVERLAYS.filter((x) => x !== 'trial')) {
      const manifests = build(o)
      const c = container(find(manifests, 'Deployment', 'anvil-gateway'))
      const mount = c.volumeMounts!.find((m) => m.name === 'tls')!
      const volume = podSpec(find(manifests, 'Deployment', 'anvil-gateway')).volumes!.find(
        (v) => v.name === 'tls',
      )!
      expect(volume.secret?.secretName).toBe('anvil-tls')
      // a kubernetes.io/tls Secret's keys
      expect(env(c, 'TLS_CERT_FILE')).toBe(`${mount.mountPath}/tls.crt`)
      expect(env(c, 'TLS_KEY_FILE')).toBe(`${mount.mountPath}/tls.key`)
      expect(configOf(c).tls).toEqual({
        certFile: `${mount.mountPath}/tls.crt`,
        keyFile: `${mount.mountPath}/tls.key`,
      })
    }
    const trial = container(find(build('trial'), 'Deployment', 'anvil-gateway'))
    expect(configOf(trial).tls).toBeUndefined()
  })

  it('runs on a Redis Cluster where the overlay says so, and on one Redis elsewhere', () => {
    for (const o of OVERLAYS) {
      for (const [name] of WORKLOADS) {
        const config = configOf(container(find(build(o), 'Deployment', name)))
        if (o === 'production-redis-cluster') {
          expect(config.redisClusterNodes, `${o} ${name}`).toHaveLength(2)
          expect(config.redisUrl).toBeUndefined()
        } else expect(config.redisUrl, `${o} ${name}`).toBeDefined()
      }
    }
  })
})
