import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RedisServer, redisUnavailable, startRedis } from '../helpers/redis-server.ts'
import type { Manifest } from './kustomize.ts'
import {
  build,
  type Container,
  container,
  find,
  type Probe,
  podSpec,
  portNumber,
  resolvedEnv,
} from './manifests.ts'
import { IMAGE_CMD, imageUser, type Mount, sandboxArgs, sandboxUnavailable } from './sandbox.ts'

// The production overlay's gateway and job worker, started as their pods would run them (sandbox.ts: the
// image's files and user, a read-only root, no capabilities, no_new_privs, the container's env): the
// gateway's only writable place is its data volume, the worker has none. Then what the manifests promise
// of them: every probe answers on the port it names, within the startup probe's budget; the API and a job
// work; the admin CLI works as `kubectl exec` runs it; SIGTERM drains within the grace period.

const ADMIN_TOKEN = 'deploy-test-admin-token-0123456789'
const skip = redisUnavailable() ?? sandboxUnavailable()
if (skip) process.stderr.write(`skipping read-only root tests: ${skip}\n`)

interface Pod {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
}

function startPod(command: string[], env: Record<string, string>, mounts: Mount[]): Pod {
  const child = spawn('bwrap', sandboxArgs(command, env, mounts), { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString()
  })
  child.stderr!.on('data', (c: Buffer) => {
    out += c.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, output: () => out, exited }
}

async function waitFor(pod: Pod, pattern: RegExp, ms: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + ms
  for (;;) {
    const m = pattern.exec(pod.output())
    if (m) return m
    if (pod.child.exitCode !== null) throw new Error(`exited with ${pod.child.exitCode}:\n${pod.output()}`)
    if (Date.now() > deadline) throw new Error(`no ${pattern} within ${ms} ms:\n${pod.output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

// as the kubelet probes: HTTPS without verifying the certificate
function get(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get(url, { rejectUnauthorized: false }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', () => resolve(0))
  })
}

async function probeStatus(probe: Probe, c: Container, ports: Map<number, number>): Promise<number> {
  const h = probe.httpGet!
  const port = ports.get(portNumber(c, h.port))
  const scheme = (h.scheme ?? 'HTTP').toLowerCase()
  if (scheme === 'https') return get(`https://127.0.0.1:${port}${h.path}`)
  // the body read to its end: an unread one keeps fetch's socket open after the pod has gone
  return fetch(`http://127.0.0.1:${port}${h.path}`).then(
    async (r) => {
      await r.arrayBuffer()
      return r.status
    },
    () => 0,
  )
}

const PROBES = ['startupProbe', 'readinessProbe', 'livenessProbe'] as const

describe.skipIf(skip !== null)('the production pods with a read-only root filesystem', () => {
  let redis: RedisServer
  let manifests: Manifest[]
  let gatewayC: Container
  let workerC: Container
  let dataDir: string
  let tlsDir: string
  let gateway: Pod | undefined
  let worker: Pod | undefined
  const ports = new Map<number, number>()
  let gatewayEnv: Record<string, string>
  let api: string
  let admin: string
  let bootMs = 0
  // the anvil-tls certificate, and a key made by the admin API for the job test
  let tlsCert = ''
  let jobKey = ''

  beforeAll(async () => {
    redis = await startRedis()
    manifests = build('production')
    gatewayC = container(find(manifests, 'Deployment', 'anvil-gateway'))
    workerC = container(find(manifests, 'Deployment', 'anvil-worker'))
    const secrets = { 'anvil-admin/token': ADMIN_TOKEN, 'anvil-redis/url': redis.url }
    // the one change for a shared machine: loopback and any free port, instead of 0.0.0.0 and fixed ports
    const here = { HOST: '127.0.0.1', PORT: '0', ADMIN_HOST: '127.0.0.1', ADMIN_PORT: '0' }
    gatewayEnv = { ...resolvedEnv(gatewayC, secrets), ...here }
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-deploy-data-'))
    // the anvil-tls Secret: a kubernetes.io/tls pair, mounted read-only where the tls component puts it
    tlsDir = await mkdtemp(join(tmpdir(), 'anvil-deploy-tls-'))
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=anvil',
      ],
      { encoding: 'utf8', env: { ...process.env, OPENSSL_CONF: '/dev/null' } },
    )
    expect(made.status, made.stderr).toBe(0)
    const mounts = podMounts(find(manifests, 'Deployment', 'anvil-gateway'), { data: dataDir, tls: tlsDir })
    const [key, cert] = splitPem(made.stdout)
    await writeFile(join(tlsDir, 'tls.key'), key, { mode: 0o440 })
    await writeFile(join(tlsDir, 'tls.crt'), cert)
    tlsCert = cert
    const started = performance.now()
    gateway = startPod(IMAGE_CMD, gatewayEnv, mounts)
    const banner = await waitFor(
      gateway,
      /listening on https:\/\/\S+:(\d+)[\s\S]*metrics\/admin: http:\/\/\S+:(\d+)\/metrics/,
      60_000,
    )
    ports.set(Number(envOf(gatewayC, 'PORT')), Number(banner[1]))
    ports.set(Number(envOf(gatewayC, 'ADMIN_PORT')), Number(banner[2]))
    api = `https://127.0.0.1:${banner[1]}`
    admin = `http://127.0.0.1:${banner[2]}`
    // the startup probe passes once /readyz does (the pools warm)
    const startup = gatewayC.startupProbe!
    const budget = (startup.periodSeconds ?? 10) * (startup.failureThreshold ?? 3) * 1000
    while ((await probeStatus(startup, gatewayC, ports)) !== 200) {
      if (performance.now() - started > budget)
        throw new Error(`not ready within the startup budget:\n${gateway.output()}`)
      await new Promise((r) => setTimeout(r, 200))
    }
    bootMs = performance.now() - started
  }, 180_000)

  afterAll(async () => {
    for (const pod of [worker, gateway]) {
      if (pod && pod.child.exitCode === null) pod.child.kill('SIGKILL')
      await pod?.exited
    }
    await redis?.stop()
    for (const d of [dataDir, tlsDir]) if (d) await rm(d, { recursive: true, force: true })
  })

  it('runs the gateway as the image user, with no capability and no way to gain one', async () => {
    const status = readFileSync(`/proc/${descendantNode(gateway!.child.pid!)}/status`, 'utf8')
    const field = (name: string) => new RegExp(`^${name}:\\s+(.*)$`, 'm').exec(status)![1]!
    expect(field('CapEff')).toBe('0000000000000000')
    expect(field('CapBnd')).toBe('0000000000000000')
    expect(field('NoNewPrivs')).toBe('1')
    expect(imageUser()).toEqual({ uid: 1000, gid: 1000 })
  })

  it("answers every probe on the port it names, within the startup budget, with the Secret's certificate", async () => {
    process.stderr.write(`gateway ready ${Math.round(bootMs)} ms after start (read-only root)\n`)
    for (const p of PROBES) expect(await probeStatus(gatewayC[p]!, gatewayC, ports), p).toBe(200)
    // the chain verifies against the anvil-tls certificate alone: that is the one served
    const status = await new Promise<number>((resolve, reject) => {
      https
        .get(`${api}/healthz`, { ca: tlsCert, checkServerIdentity: () => undefined }, (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
        .on('error', reject)
    })
    expect(status).toBe(200)
  })

  it('serves the API, the docs page, the admin API and a pooled operation', async () => {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${admin}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      })
      expect(res.status, path).toBeLessThan(300)
      return ((await res.json()) as { data: Record<string, string> }).data
    }
    const ws = await call('POST', '/admin/workspaces', { name: 'deploy', plan: 'pro' })
    const key = (await call('POST', '/admin/keys', { workspace_id: ws.id })).key!
    const left = Array.from({ length: 20_000 }, (_, i) => ({ i, v: `item ${i}` }))
    const right = left.map((x) => (x.i % 7 === 0 ? { ...x, v: 'changed' } : x))
    for (const [path, body] of [
      ['/v1/hash/sha256', { input: 'hello' }],
      ['/v1/json/diff', { left, right }],
    ] as const) {
      const status = await postStatus(`${api}${path}`, key, body)
      expect(status, path).toBe(200)
    }
    expect(await get(`${api}/docs/`)).toBe(200)
    const metrics = await (await fetch(`${admin}/metrics`)).text()
    expect(metrics).toMatch(/anvil_dispatch_total\{op="json\.diff",mode="pool"\} [1-9]/)
    jobKey = key
  })

  it('runs a job on a worker whose whole filesystem is read-only, and its probes answer', async () => {
    const secrets = { 'anvil-redis/url': redis.url }
    const env = {
      ...resolvedEnv(workerC, secrets),
      JOBS_WORKER_METRICS_HOST: '127.0.0.1',
      JOBS_WORKER_METRICS_PORT: '0',
    }
    worker = startPod(workerC.command!, env, podMounts(find(manifests, 'Deployment', 'anvil-worker'), {}))
    const banner = await waitFor(worker, /metrics: http:\/\/\S+:(\d+)\/metrics/, 60_000)
    const workerPorts = new Map([[Number(envOf(workerC, 'JOBS_WORKER_METRICS_PORT')), Number(banner[1])]])
    for (const p of PROBES) expect(await probeStatus(workerC[p]!, workerC, workerPorts), p).toBe(200)
    const submitted = await postJson(`${api}/v1/jobs`, jobKey, {
      operation: 'hash',
      params: { algorithm: 'sha256', input: 'job' },
    })
    expect(submitted.status).toBe(202)
    let status = ''
    for (let i = 0; i < 200 && status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 100))
      status = (await getJson(`${api}/v1/jobs/${submitted.id}`, jobKey)).status ?? ''
    }
    expect(status, worker.output()).toBe('completed')
  })

  it('runs the admin CLI in the gateway pod, as `kubectl exec` does', () => {
    // the pod's environment, where ADMIN_PORT is the port the listener has
    const env = { ...gatewayEnv, ADMIN_PORT: String(ports.get(Number(envOf(gatewayC, 'ADMIN_PORT')))) }
    const r = spawnSync(
      'bwrap',
      sandboxArgs(
        ['node', 'src/main/admin-cli.ts', 'workspaces', 'list'],
        env,
        podMounts(find(manifests, 'Deployment', 'anvil-gateway'), { data: dataDir, tls: tlsDir }),
      ),
      { encoding: 'utf8' },
    )
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain('deploy')
  })

  it('drains on SIGTERM within the grace period, and wrote only to its data volume', async () => {
    const spec = podSpec(find(manifests, 'Deployment', 'anvil-gateway'))
    const preStop = gatewayC.lifecycle?.preStop?.sleep?.seconds ?? 0
    for (const [pod, grace] of [
      [gateway!, spec.terminationGracePeriodSeconds! - preStop],
      [worker!, podSpec(find(manifests, 'Deployment', 'anvil-worker')).terminationGracePeriodSeconds!],
    ] as const) {
      const since = performance.now()
      // the runtime signals the container's first process, node (the image's exec-form CMD); bwrap passes
      // its exit status on
      process.kill(descendantNode(pod.child.pid!), 'SIGTERM')
      expect(await pod.exited, pod.output()).toBe(0)
      expect(performance.now() - since).toBeLessThan(grace * 1000)
    }
    expect((await readdir(dataDir)).sort()).toEqual(['admin-listener.json'])
    expect(gateway!.output()).not.toMatch(/EROFS|read-only file system/i)
  })
})

function envOf(c: Container, name: string): string {
  const v = c.env?.find((e) => e.name === name)?.value
  if (v === undefined) throw new Error(`${c.name}: no ${name}`)
  return v
}

// the pod's volumes as mounts: emptyDir and Secret volumes from `hosts` (by volume name)
function podMounts(deployment: Manifest, hosts: Record<string, string>): Mount[] {
  const spec = podSpec(deployment)
  return (spec.containers[0]!.volumeMounts ?? []).map((m) => {
    const volume = spec.volumes!.find((v) => v.name === m.name)!
    const host = hosts[m.name]
    if (!host) throw new Error(`volume ${m.name}: no host folder given`)
    return { host, path: m.mountPath, readOnly: m.readOnly === true || volume.secret !== undefined }
  })
}

function splitPem(text: string): [string, string] {
  const key = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----\n/.exec(text)![0]
  const cert = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/.exec(text)![0]
  return [key, cert]
}

// bwrap runs the command as its child: the node process, found through /proc (its `comm` is the binary's
// name, or the main thread's name Node gives it)
function descendantNode(pid: number): number {
  const parents = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      parents.set(Number(entry), ppid)
    } catch {
      // gone meanwhile
    }
  }
  const queue = [pid]
  while (queue.length > 0) {
    const p = queue.shift()!
    const exe = (() => {
      try {
        return readlinkSync(`/proc/${p}/exe`)
      } catch {
        return ''
      }
    })()
    if (exe.endsWith('/node')) return p
    for (const [child, parent] of parents) if (parent === p) queue.push(child)
  }
  throw new Error('no node process under bwrap')
}

function request(
  url: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; json: { data?: Record<string, string> } }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body)
    const req = https.request(
      url,
      {
        method: data ? 'POST' : 'GET',
        rejectUnauthorized: false,
        headers: { authorization: `Bearer ${key}`, ...(data ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(chunks).toString() || '{}'),
          }),
        )
      },
    )
    req.on('error', reject)
    req.end(data)
  })
}

async function postStatus(url: string, key: string, body: unknown): Promise<number> {
  return (await request(url, key, body)).status
}

async function postJson(url: string, key: string, body: unknown): Promise<{ status: number; id: string }> {
  const r = await request(url, key, body)
  return { status: r.status, id: r.json.data?.id ?? '' }
}

async function getJson(url: string, key: string): Promise<Record<string, string>> {
  return (await request(url, key)).json.data ?? {}
}
