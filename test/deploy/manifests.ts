import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { kustomizeBuild, type Manifest } from './kustomize.ts'
import { ROOT } from './sandbox.ts'

// The manifests as `kubectl apply -k` would send them: the base and every overlay, built once.

export const KUBERNETES = join(ROOT, 'deploy', 'kubernetes')
export const OVERLAYS = readdirSync(join(KUBERNETES, 'overlays')).sort()

const cache = new Map<string, Manifest[]>()

// 'base' or an overlay's name
export function build(name: string): Manifest[] {
  let out = cache.get(name)
  if (!out) {
    out = kustomizeBuild(name === 'base' ? join(KUBERNETES, 'base') : join(KUBERNETES, 'overlays', name))
    cache.set(name, out)
  }
  return structuredClone(out)
}

export function find(manifests: Manifest[], kind: string, name: string): Manifest {
  const m = manifests.find((r) => r.kind === kind && r.metadata.name === name)
  if (!m) throw new Error(`no ${kind} ${name}`)
  return m
}

export interface EnvVar {
  name: string
  value?: string
  valueFrom?: { secretKeyRef?: { name: string; key: string } }
}

export interface Probe {
  httpGet?: { path: string; port: string | number; scheme?: string }
  tcpSocket?: { port: string | number }
  exec?: { command: string[] }
  periodSeconds?: number
  failureThreshold?: number
  timeoutSeconds?: number
}

export interface Container {
  name: string
  image: string
  command?: string[]
  args?: string[]
  env?: EnvVar[]
  ports?: { name: string; containerPort: number }[]
  startupProbe?: Probe
  readinessProbe?: Probe
  livenessProbe?: Probe
  lifecycle?: { preStop?: { sleep?: { seconds: number }; exec?: unknown } }
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> }
  securityContext?: Record<string, unknown>
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[]
}

export interface PodSpec {
  containers: Container[]
  initContainers?: Container[]
  volumes?: { name: string; emptyDir?: unknown; secret?: { secretName: string }; [k: string]: unknown }[]
  securityContext?: Record<string, unknown>
  terminationGracePeriodSeconds?: number
  [key: string]: unknown
}

export function podSpec(m: Manifest): PodSpec {
  return (m.spec as { template: { spec: PodSpec } }).template.spec
}

export function container(m: Manifest, name?: string): Container {
  const c = name ? podSpec(m).containers.find((x) => x.name === name) : podSpec(m).containers[0]
  if (!c) throw new Error(`${m.metadata.name}: no container ${name}`)
  return c
}

// The container's environment with each Secret key replaced by `secrets[secret/key]`: a key the test does
// not provide is an error, as a missing Secret key keeps a pod from starting.
export function resolvedEnv(c: Container, secrets: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {}
  for (const v of c.env ?? []) {
    if (v.value !== undefined) env[v.name] = v.value
    else if (v.valueFrom?.secretKeyRef) {
      const ref = `${v.valueFrom.secretKeyRef.name}/${v.valueFrom.secretKeyRef.key}`
      if (!(ref in secrets))
        throw new Error(`${c.name}: ${v.name} reads Secret key ${ref}, which the test does not give`)
      env[v.name] = secrets[ref]!
    } else throw new Error(`${c.name}: ${v.name} is neither a value nor a Secret key`)
  }
  return env
}

// the container port's number for a probe's or a Service's named port
export function portNumber(c: Container, port: string | number): number {
  if (typeof port === 'number') return port
  const p = c.ports?.find((x) => x.name === port)
  if (!p) throw new Error(`${c.name}: no port named ${port}`)
  return p.containerPort
}

// "3Gi" → bytes, "1500m" → 1.5 (CPU), as Kubernetes reads quantities
export function quantity(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti|k|M|G)?$/.exec(q)
  if (!m) throw new Error(`quantity ${q}`)
  const unit = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9 }
  return Number(m[1]) * (m[2] ? unit[m[2] as keyof typeof unit] : 1)
}
