import { describe, expect, it } from 'vitest'
import type { Manifest } from './kustomize.ts'
import { build, type Container, find, OVERLAYS, type PodSpec } from './manifests.ts'
import { modelFor } from './models.ts'
import { unknownFields } from './strict.ts'

// What `kubectl apply -k` would send, for the base and every overlay, checked as an API server and a
// careful reviewer would: schemas, unknown fields, the Pod Security "restricted" profile, the recommended
// labels, that every selector and reference finds what it names, and that secrets come from Secrets.

const BUILDS = ['base', ...OVERLAYS]
const WORKLOADS = new Set(['Deployment', 'StatefulSet'])

function pods(manifests: Manifest[]): { owner: Manifest; spec: PodSpec; labels: Record<string, string> }[] {
  return manifests
    .filter((m) => WORKLOADS.has(m.kind))
    .map((m) => {
      const t = (m.spec as { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } })
        .template
      return { owner: m, spec: t.spec, labels: t.metadata.labels }
    })
}

function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v)
}

function containers(spec: PodSpec): Container[] {
  return [...(spec.initContainers ?? []), ...spec.containers]
}

describe('deploy/kubernetes manifests', () => {
  it('builds the base and every overlay', () => {
    expect(OVERLAYS).toEqual(['production', 'production-hpa', 'production-redis-cluster', 'trial'])
    for (const b of BUILDS) expect(build(b).length, b).toBeGreaterThan(0)
  })

  for (const b of BUILDS) {
    it(`${b}: every object is valid against its kind's schema (Kubernetes 1.36, KEDA, Prometheus Operator)`, () => {
      for (const m of build(b)) {
        const found = modelFor(m.apiVersion, m.kind)
        expect(found, `${m.apiVersion} ${m.kind}`).toBeDefined()
        expect(() => new found!.model(m).validate(), `${m.kind} ${m.metadata.name}`).not.toThrow()
      }
    })
  }

  it('names no field the API does not have, in any build', () => {
    const named = BUILDS.flatMap((b) =>
      build(b).map((m) => ({ label: `${b} ${m.kind} ${m.metadata.name}`, manifest: m })),
    )
    expect(unknownFields(named)).toEqual([])
  })

  for (const b of BUILDS) {
    it(`${b}: every pod meets the Pod Security "restricted" profile, with a read-only root`, () => {
      for (const { owner, spec } of pods(build(b))) {
        const where = `${b} ${owner.kind} ${owner.metadata.name}`
        expect(spec.hostNetwork ?? false, where).toBe(false)
        expect(spec.hostPID ?? false, where).toBe(false)
        expect(spec.hostIPC ?? false, where).toBe(false)
        const pod = spec.securityContext as {
          runAsNonRoot?: boolean
          runAsUser?: number
          seccompProfile?: { type: string }
        }
        expect(pod.runAsNonRoot, where).toBe(true)
        expect(pod.runAsUser, where).toBeGreaterThan(0)
        expect(pod.seccompProfile?.type, where).toBe('RuntimeDefault')
        for (const v of spec.volumes ?? []) {
          const type = Object.keys(v).find((k) => k !== 'name')!
          expect(
            ['configMap', 'emptyDir', 'secret', 'persistentVolumeClaim', 'projected', 'downwardAPI'],
            where,
          ).toContain(type)
        }
        for (const c of containers(spec)) {
          const sc = c.securityContext as {
            privileged?: boolean
            allowPrivilegeEscalation?: boolean
            readOnlyRootFilesystem?: boolean
            capabilities?: { drop?: string[]; add?: string[] }
            runAsUser?: number
          }
          expect(sc.privileged ?? false, where).toBe(false)
          expect(sc.allowPrivilegeEscalation, where).toBe(false)
          expect(sc.readOnlyRootFilesystem, where).toBe(true)
          expect(sc.capabilities?.drop, where).toEqual(['ALL'])
          expect(sc.capabilities?.add ?? [], where).toEqual([])
          expect(sc.runAsUser ?? pod.runAsUser, where).not.toBe(0)
          expect(c.ports?.some((p) => 'hostPort' in p) ?? false, where).toBe(false)
        }
        // nothing of the Kubernetes API is needed: no token in the pod, no service links in the env
        expect(spec.automountServiceAccountToken, where).toBe(false)
        expect(spec.enableServiceLinks, where).toBe(false)
      }
      for (const ns of build(b).filter((m) => m.kind === 'Namespace')) {
        expect(ns.metadata.labels).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'restricted' })
      }
    })

    it(`${b}: every container has probes, requests and limits, and a pinned image in an overlay`, () => {
      for (const { owner, spec } of pods(build(b))) {
        for (const c of spec.containers) {
          const where = `${b} ${owner.metadata.name}/${c.name}`
          expect(c.readinessProbe, where).toBeDefined()
          expect(c.livenessProbe, where).toBeDefined()
          for (const r of ['cpu', 'memory']) {
            expect(c.resources?.requests?.[r], `${where} requests.${r}`).toBeDefined()
            expect(c.resources?.limits?.[r], `${where} limits.${r}`).toBeDefined()
          }
          if (b !== 'base') expect(c.image, where).toMatch(/^[^:@]+(:[^:]*\d[^:]*|@sha256:[0-9a-f]{64})$/)
          expect(c.image, where).not.toMatch(/:latest$/)
        }
      }
    })

    it(`${b}: every object carries the recommended labels; selectors find their pods`, () => {
      const manifests = build(b)
      for (const m of manifests) {
        const labels = (m.metadata.labels ?? {}) as Record<string, string>
        expect(labels, `${m.kind} ${m.metadata.name}`).toMatchObject({
          'app.kubernetes.io/part-of': 'anvil',
          'app.kubernetes.io/managed-by': 'kustomize',
        })
        if (m.kind !== 'Namespace') {
          expect(labels, `${m.kind} ${m.metadata.name}`).toMatchObject({
            'app.kubernetes.io/name': 'anvil',
            'app.kubernetes.io/instance': 'anvil',
          })
        }
      }
      const all = pods(manifests)
      for (const { owner, labels } of all) {
        const selector = (owner.spec as { selector: { matchLabels: Record<string, string> } }).selector
          .matchLabels
        expect(selects(selector, labels), owner.metadata.name).toBe(true)
        expect(labels['app.kubernetes.io/component'], owner.metadata.name).toBeDefined()
        // no two workloads' pods answer each other's selector
        for (const other of all.filter((o) => o.owner !== owner))
          expect(selects(selector, other.labels)).toBe(false)
      }
      for (const svc of manifests.filter((m) => m.kind === 'Service')) {
        const spec = svc.spec as {
          selector: Record<string, string>
          ports: { name: string; targetPort: string | number }[]
        }
        const targets = all.filter((p) => selects(spec.selector, p.labels))
        expect(targets.length, `Service ${svc.metadata.name}`).toBe(1)
        for (const port of spec.ports) {
          const names = targets[0]!.spec.containers.flatMap((c) => c.ports ?? []).map((p) => p.name)
          expect(names, `Service ${svc.metadata.name} port ${port.name}`).toContain(port.targetPort)
        }
      }
      for (const pdb of manifests.filter((m) => m.kind === 'PodDisruptionBudget')) {
        const sel = (pdb.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels
        expect(all.filter((p) => selects(sel, p.labels)).length, `PDB ${pdb.metadata.name}`).toBe(1)
      }
      for (const np of manifests.filter((m) => m.kind === 'NetworkPolicy')) {
        const spec = np.spec as {
          podSelector: { matchLabels: Record<string, string> }
          ingress: { ports?: { port: string | number }[] }[]
        }
        const targets = all.filter((p) => selects(spec.podSelector.matchLabels, p.labels))
        expect(targets.length, `NetworkPolicy ${np.metadata.name}`).toBe(1)
        const names = targets[0]!.spec.containers.flatMap((c) => c.ports ?? []).map((p) => p.name)
        for (const rule of spec.ingress) for (const p of rule.ports ?? []) expect(names).toContain(p.port)
      }
      for (const { owner, spec, labels } of all) {
        const constraints = (spec.topologySpreadConstraints ?? []) as {
          labelSelector: { matchLabels: Record<string, string> }
        }[]
        for (const t of constraints)
          expect(selects(t.labelSelector.matchLabels, labels), owner.metadata.name).toBe(true)
      }
      for (const scaler of manifests.filter((m) =>
        ['HorizontalPodAutoscaler', 'ScaledObject'].includes(m.kind),
      )) {
        const name = (scaler.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name
        expect(find(manifests, 'Deployment', name)).toBeDefined()
      }
      for (const sm of manifests.filter((m) => m.kind === 'ServiceMonitor')) {
        const spec = sm.spec as {
          selector: { matchLabels: Record<string, string> }
          endpoints: { port: string }[]
        }
        const services = manifests.filter(
          (m) =>
            m.kind === 'Service' &&
            selects(spec.selector.matchLabels, (m.metadata.labels ?? {}) as Record<string, string>),
        )
        expect(services.length, `ServiceMonitor ${sm.metadata.name}`).toBe(1)
        const ports = (services[0]!.spec as { ports: { name: string }[] }).ports.map((p) => p.name)
        for (const e of spec.endpoints) expect(ports).toContain(e.port)
      }
    })

    it(`${b}: secrets come only from Secrets, and every Secret a pod reads is named`, () => {
      const manifests = build(b)
      const SECRET_VARS = ['ADMIN_TOKEN', 'REDIS_URL', 'REDIS_CLUSTER_NODES']
      for (const { owner, spec } of pods(manifests)) {
        for (const c of containers(spec)) {
          for (const v of c.env ?? []) {
            const where = `${owner.metadata.name}/${c.name} ${v.name}`
            if (SECRET_VARS.includes(v.name) && v.name !== 'TLS_KEY_FILE')
              expect(v.valueFrom?.secretKeyRef, where).toBeDefined()
            // no credentials inline, whatever the variable
            expect(v.value ?? '', where).not.toMatch(/:\/\/[^/\s]*@|-----BEGIN/)
          }
        }
      }
      // the only Secret written in the manifests is the trial's, whose Redis has no password
      const secrets = manifests.filter((m) => m.kind === 'Secret')
      expect(secrets.map((s) => s.metadata.name)).toEqual(b === 'trial' ? ['anvil-redis'] : [])
      for (const s of secrets) {
        const url = new URL((s.stringData as { url: string }).url)
        expect(url.password).toBe('')
        expect(url.username).toBe('')
      }
    })
  }
})
