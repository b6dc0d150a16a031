import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Manifest } from './kustomize.ts'
import { modelFor } from './models.ts'
import { ROOT } from './sandbox.ts'

// The JSON schemas Kubernetes publishes allow fields they do not name (kubectl's server-side check and
// kubeconform's -strict refuse them), so a misspelt `readinesProbe` would validate. The models' TypeScript
// interfaces name every field: each manifest becomes an object literal typed with its kind's interface,
// and TypeScript's excess-property check reports every field the API does not have. Returns tsc's errors.
export function unknownFields(named: { label: string; manifest: Manifest }[]): string[] {
  // inside node_modules, so the packages resolve as from the tests
  const dir = join(ROOT, 'node_modules', '.cache', 'anvil-deploy-strict')
  mkdirSync(dir, { recursive: true })
  const imports = new Map<string, string>()
  const lines: string[] = []
  named.forEach(({ label, manifest }, i) => {
    const found = modelFor(manifest.apiVersion, manifest.kind)
    if (!found) throw new Error(`${label}: no model for ${manifest.apiVersion} ${manifest.kind}`)
    const type = `I${manifest.kind}`
    const alias = `${type}_${imports.size}`
    if (!imports.has(found.module)) imports.set(found.module, alias)
    lines.push(
      `// ${label}\nexport const m${i}: ${imports.get(found.module)} = ${JSON.stringify(manifest, null, 1)}`,
    )
  })
  const head = [...imports].map(([module, alias]) => {
    const kind = alias.replace(/_\d+$/, '')
    return `import type { ${kind} as ${alias} } from '${module}'`
  })
  writeFileSync(join(dir, 'manifests.ts'), `${head.join('\n')}\n${lines.join('\n')}\n`)
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2024',
        skipLibCheck: true,
        noEmit: true,
        types: [],
      },
      files: ['manifests.ts'],
    }),
  )
  const r = spawnSync(
    join(ROOT, 'node_modules', '.bin', 'tsc'),
    ['-p', join(dir, 'tsconfig.json'), '--pretty', 'false'],
    {
      encoding: 'utf8',
    },
  )
  if (r.error) throw r.error
  // each error named by the manifest it is in (its `// label` line is the nearest above it)
  const source = `${head.join('\n')}\n${lines.join('\n')}\n`.split('\n')
  return r.stdout
    .split('\n')
    .filter((l) => l.includes('error TS'))
    .map((l) => {
      const line = Number(/\((\d+),\d+\)/.exec(l)?.[1] ?? 0)
      const label = source
        .slice(0, line)
        .reverse()
        .find((s) => s.startsWith('// '))
      return `${label?.slice(3) ?? '?'}: ${l.slice(l.indexOf('error TS'))}`
    })
}
