import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { join, resolve, sep } from 'node:path'
import fastJsonPatch, { type Operation } from 'fast-json-patch'
import { parseAllDocuments, parse as parseYaml } from 'yaml'

// `kustomize build` for the subset of kustomize that deploy/kubernetes/ uses, for tests: there is no
// kustomize on npm or in Debian (only kubectl 1.20, whose kustomize is v2), and a kubectl is not what a
// test should need. What it does, each as kustomize v5 does it (test/deploy/kustomize.test.ts compares it
// with recorded `kustomize build` outputs, and with a kustomize or kubectl on PATH when there is one):
// - `resources`: YAML files (multi-document) inside the kustomization's folder (kustomize's default load
//   restriction) and folders holding a Kustomization, built first;
// - `components`: folders holding a Component, applied in order to everything accumulated so far (its own
//   resources added, then its transformers run over the lot);
// - then the kustomization's own transformers, in kustomize's order: `patches` (RFC 6902 JSON patches with
//   a `target` of group, version, kind and name), `namespace`, `images` (newName, newTag, digest);
// - the output in kustomize's default ("legacy") order.
// Anything else (another field, a strategic-merge patch, a regular expression in a target, a kind whose
// namespace kustomize would also write elsewhere) is refused rather than half done. Stricter than kustomize
// in one way: a patch whose target matches nothing is an error (kustomize ignores it).

export interface Manifest {
  apiVersion: string
  kind: string
  metadata: { name: string; namespace?: string; [key: string]: unknown }
  [key: string]: unknown
}

interface Target {
  group?: string
  version?: string
  kind?: string
  name?: string
}

interface Kustomization {
  apiVersion?: string
  kind?: string
  namespace?: string
  resources?: string[]
  components?: string[]
  patches?: { target?: Target; patch?: string; path?: string }[]
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[]
}

const FIELDS = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'components', 'patches', 'images'])
const FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization']

// Cluster-scoped kinds the manifests may hold (the namespace transformer leaves them alone), and kinds
// whose references to a namespace kustomize also rewrites: refused, since this loader would not.
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'StorageClass',
  'PriorityClass',
  'PersistentVolume',
])
const NAMESPACE_REFERENCES = new Set([
  'RoleBinding',
  'ClusterRoleBinding',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'APIService',
  'CustomResourceDefinition',
])

// kustomize's defaultOrderFirst (api/internal/builtins/SortOrderTransformer.go, "DO NOT CHANGE!")
const ORDER_FIRST = [
  'Namespace',
  'ResourceQuota',
  'StorageClass',
  'CustomResourceDefinition',
  'ServiceAccount',
  'PodSecurityPolicy',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
  'ConfigMap',
  'Secret',
  'Endpoints',
  'Service',
  'LimitRange',
  'PriorityClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'Deployment',
  'StatefulSet',
  'CronJob',
  'PodDisruptionBudget',
]
const ORDER_LAST = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']

export class KustomizeError extends Error {
  override name = 'KustomizeError'
}

function fail(dir: string, message: string): never {
  throw new KustomizeError(`${dir}: ${message}`)
}

function readKustomization(dir: string): Kustomization {
  const file = FILES.map((f) => join(dir, f)).find((f) => existsSync(f))
  if (!file) fail(dir, 'no kustomization.yaml')
  const k = (parseYaml(readFileSync(file, 'utf8')) ?? {}) as Kustomization
  for (const field of Object.keys(k)) {
    if (!FIELDS.has(field)) fail(dir, `field ${field} is not supported by this loader`)
  }
  return k
}

function group(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.split('/')[0]! : ''
}

function version(apiVersion: string): string {
  return apiVersion.split('/').at(-1)!
}

function id(m: Manifest): string {
  // kustomize's resource id: group, version and kind, namespace, name
  return `${m.apiVersion}/${m.kind}/${m.metadata.namespace ?? ''}/${m.metadata.name}`
}

function readResources(root: string, file: string): Manifest[] {
  const path = resolve(root, file)
  const real = realpathSync(path)
  const rootReal = realpathSync(root)
  if (real !== rootReal && !real.startsWith(rootReal + sep)) {
    fail(root, `file ${file} is not in or below the kustomization's folder (kustomize's load restriction)`)
  }
  const out: Manifest[] = []
  for (const doc of parseAllDocuments(readFileSync(path, 'utf8'))) {
    if (doc.errors.length > 0) fail(root, `${file}: ${doc.errors[0]!.message}`)
    const m = doc.toJS() as Manifest | null
    if (m === null) continue
    if (!m.apiVersion || !m.kind || !m.metadata?.name)
      fail(root, `${file}: a resource without apiVersion, kind or name`)
    if (NAMESPACE_REFERENCES.has(m.kind))
      fail(root, `${file}: kind ${m.kind} is not supported by this loader`)
    out.push(m)
  }
  return out
}

function add(dir: string, into: Manifest[], more: Manifest[]): void {
  const ids = new Set(into.map(id))
  for (const m of more) {
    if (ids.has(id(m))) fail(dir, `may not add resource with an already registered id: ${id(m)}`)
    ids.add(id(m))
    into.push(m)
  }
}

function matches(m: Manifest, t: Target): boolean {
  return (
    (t.group === undefined || t.group === group(m.apiVersion)) &&
    (t.version === undefined || t.version === version(m.apiVersion)) &&
    (t.kind === undefined || t.kind === m.kind) &&
    (t.name === undefined || t.name === m.metadata.name)
  )
}

function applyPatches(dir: string, k: Kustomization, resources: Manifest[]): Manifest[] {
  let out = resources
  for (const p of k.patches ?? []) {
    if (!p.target) fail(dir, 'a patch without a target is not supported by this loader')
    for (const v of Object.values(p.target)) {
      if (typeof v === 'string' && /[\\^$.*+?()[\]{}|]/.test(v)) {
        fail(dir, `target ${v}: regular expressions are not supported by this loader`)
      }
    }
    const text = p.patch ?? (p.path ? readFileSync(join(dir, p.path), 'utf8') : undefined)
    if (text === undefined) fail(dir, 'a patch needs `patch` or `path`')
    const ops = parseYaml(text) as unknown
    if (!Array.isArray(ops)) fail(dir, 'strategic-merge patches are not supported by this loader')
    const hit = out.filter((m) => matches(m, p.target!))
    if (hit.length === 0) fail(dir, `patch target ${JSON.stringify(p.target)} matches no resource`)
    out = out.map((m) => {
      if (!matches(m, p.target!)) return m
      try {
        return fastJsonPatch.applyPatch(structuredClone(m), ops as Operation[], true, false).newDocument
      } catch (err) {
        // kustomize's words: "testing value <path> failed: test failed"
        const test = (err as { name?: string }).name === 'TEST_OPERATION_FAILED' ? ' (test failed)' : ''
        return fail(dir, `patch on ${id(m)}: ${(err as Error).message}${test}`)
      }
    })
  }
  return out
}

function setNamespace(namespace: string | undefined, resources: Manifest[]): Manifest[] {
  if (namespace === undefined) return resources
  return resources.map((m) =>
    CLUSTER_SCOPED.has(m.kind) ? m : { ...m, metadata: { ...m.metadata, namespace } },
  )
}

type PodSpec = { containers?: { image?: string }[]; initContainers?: { image?: string }[] }

function podSpec(m: Manifest): PodSpec | undefined {
  const spec = m.spec as
    | { template?: { spec?: PodSpec }; jobTemplate?: { spec?: { template?: { spec?: PodSpec } } } }
    | undefined
  if (m.kind === 'Pod') return m.spec as PodSpec
  if (m.kind === 'CronJob') return spec?.jobTemplate?.spec?.template?.spec
  return spec?.template?.spec
}

// name[:tag][@digest] split as kustomize's image.Split does (a port before the tag is part of the name)
function splitImage(image: string): { name: string; tag: string; digest: string } {
  const at = image.indexOf('@')
  const digest = at >= 0 ? image.slice(at) : ''
  const rest = at >= 0 ? image.slice(0, at) : image
  const colon = rest.lastIndexOf(':')
  if (colon > rest.lastIndexOf('/')) return { name: rest.slice(0, colon), tag: rest.slice(colon), digest }
  return { name: rest, tag: '', digest }
}

function setImages(k: Kustomization, resources: Manifest[]): Manifest[] {
  if (!k.images?.length) return resources
  return resources.map((m) => {
    const pod = podSpec(m)
    if (!pod) return m
    const copy = structuredClone(m)
    const spec = podSpec(copy)!
    for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
      if (c.image === undefined) continue
      const parts = splitImage(c.image)
      const rule = k.images!.find((i) => i.name === parts.name)
      if (!rule) continue
      let { tag, digest } = parts
      if (rule.newTag !== undefined) [tag, digest] = [`:${rule.newTag}`, '']
      if (rule.digest !== undefined) [tag, digest] = ['', `@${rule.digest}`]
      c.image = `${rule.newName ?? parts.name}${tag}${digest}`
    }
    return copy
  })
}

function order(m: Manifest): number {
  const first = ORDER_FIRST.indexOf(m.kind)
  if (first >= 0) return first - ORDER_FIRST.length
  const last = ORDER_LAST.indexOf(m.kind)
  return last >= 0 ? 1 + last : 0
}

function gvkString(m: Manifest): string {
  return [group(m.apiVersion) || '~G', version(m.apiVersion) || '~V', m.kind || '~K'].join('_')
}

function legacyOrder(resources: Manifest[]): Manifest[] {
  const key = (m: Manifest) => `${gvkString(m)}|${m.metadata.namespace || '~X'}|${m.metadata.name || '~N'}`
  return [...resources].sort((a, b) => {
    if (gvkString(a) !== gvkString(b)) {
      if (order(a) !== order(b)) return order(a) - order(b)
      return gvkString(a) < gvkString(b) ? -1 : 1
    }
    return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0
  })
}

function accumulate(dir: string, expect: 'Kustomization' | 'Component', input: Manifest[]): Manifest[] {
  const k = readKustomization(dir)
  const kind = k.kind ?? 'Kustomization'
  // kustomize's own wording for both mistakes
  if (expect === 'Kustomization' && kind === 'Component')
    fail(dir, `expected kind != 'Component' for path '${dir}'`)
  if (kind !== expect) fail(dir, `expected kind '${expect}' for path '${dir}' but got '${kind}'`)
  const resources = [...input]
  for (const r of k.resources ?? []) {
    const path = resolve(dir, r)
    if (!existsSync(path)) fail(dir, `resource ${r} does not exist`)
    if (statSync(path).isDirectory()) add(dir, resources, accumulate(path, 'Kustomization', []))
    else add(dir, resources, readResources(dir, r))
  }
  let out = resources
  for (const c of k.components ?? []) {
    const path = resolve(dir, c)
    if (!existsSync(path) || !statSync(path).isDirectory()) fail(dir, `component ${c} is not a folder`)
    out = accumulate(path, 'Component', out)
  }
  out = applyPatches(dir, k, out)
  out = setNamespace(k.namespace, out)
  return setImages(k, out)
}

// `kustomize build dir`: the resources, as objects, in kustomize's output order
export function kustomizeBuild(dir: string): Manifest[] {
  return legacyOrder(accumulate(resolve(dir), 'Kustomization', []))
}
