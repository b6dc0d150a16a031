import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkLayers, KNOWN_ROUTE_IMPORTS, readLayers } from '../../scripts/check-layers.ts'

const ROOT = new URL('../../', import.meta.url).pathname
const SCRIPT = new URL('../../scripts/check-layers.ts', import.meta.url).pathname
const dirs: string[] = []

// a throwaway tree: path → source
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'anvil-layers-'))
  dirs.push(root)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

// the order, as docs/architecture.md writes it: a table under "## Layers", top to bottom
const doc = (layers: string[]) =>
  `# Architecture\n\n## Layers\n\n| layer | what |\n|---|---|\n${layers.map((l) => `| \`${l}\` | x |`).join('\n')}\n\nText.\n\n## Next\n\n| \`src/other/\` | not a layer |\n`
const ORDER = [
  'src/main/',
  'src/http/',
  'src/runtime.ts',
  'src/config.ts',
  'src/jobs/',
  'src/exec/',
  'src/keys/',
  'src/store/',
  'workers/',
  'src/ops/',
  'src/lib/',
  'src/errors.ts',
]

// a minimal tree that keeps every rule
const CLEAN = {
  'docs/architecture.md': doc(ORDER),
  'src/errors.ts': 'export const E = 1\n',
  'src/lib/ids.ts': "import { E } from '../errors.ts'\nexport const id = E\n",
  'src/ops/catalog.ts': "import { hash } from './hash/hash.ts'\nexport const OPS = { hash }\n",
  'src/ops/hash/hash.ts': "import { id } from '../../lib/ids.ts'\nexport const hash = id\n",
  'src/ops/hash/schema.ts': "import { z } from 'zod'\nexport const body = z.object({})\n",
  'workers/entry.ts': "import { OPS } from '../src/ops/catalog.ts'\nexport default OPS\n",
  'src/store/types.ts': 'export type Store = { a: 1 }\n',
  'src/keys/verify.ts': "import type { Store } from '../store/types.ts'\nexport const v = (s: Store) => s\n",
  'src/exec/pools.ts':
    "export interface PoolsConfig { threads: number }\nexport const WORKER = new URL('../../workers/entry.ts', import.meta.url)\n",
  'src/exec/open.ts': "import { WORKER } from './pools.ts'\nexport const openPools = () => WORKER\n",
  'src/jobs/schema.ts': "import { body } from '../ops/hash/schema.ts'\nexport const job = body\n",
  'src/config.ts':
    "import type { PoolsConfig } from './exec/pools.ts'\nexport const loadConfig = (): { pools: PoolsConfig } => ({ pools: { threads: 1 } })\n",
  'src/runtime.ts':
    "import type { loadConfig } from './config.ts'\nimport { openPools } from './exec/open.ts'\nexport const openRuntime = (c: ReturnType<typeof loadConfig>) => [c, openPools()]\n",
  'src/http/v1/hash.ts':
    "import { OPS } from '../../ops/catalog.ts'\nimport { body } from '../../ops/hash/schema.ts'\nexport const r = [OPS, body]\n",
  'src/http/app.ts':
    "import type { openRuntime } from '../runtime.ts'\nimport { r } from './v1/hash.ts'\nexport const app = (x: typeof openRuntime) => [x, r]\n",
  'src/main/gateway.ts':
    "import { app } from '../http/app.ts'\nimport { loadConfig } from '../config.ts'\nimport { openRuntime } from '../runtime.ts'\nvoid [app, loadConfig, openRuntime]\n",
}

describe('check-layers (the import boundaries of src/ and workers/)', () => {
  it('passes on the repository itself, in well under 10 s', () => {
    const started = performance.now()
    const { violations, modules } = checkLayers(ROOT)
    expect(performance.now() - started).toBeLessThan(10_000)
    expect(violations).toEqual([])
    expect(modules).toBeGreaterThan(100)
  })

  it('reads the order from docs/architecture.md: workers/ sits directly above ops, lib and errors', () => {
    const layers = readLayers(ROOT)
    expect(layers[0]).toBe('src/main/')
    // so the order alone keeps a pool thread to the ops, the lib and the error table
    expect(layers.slice(layers.indexOf('workers/') + 1)).toEqual(['src/ops/', 'src/lib/', 'src/errors.ts'])
    expect(layers.slice(layers.indexOf('src/ops/') + 1)).toEqual(['src/lib/', 'src/errors.ts'])
  })

  it('passes on a clean tree', () => {
    expect(checkLayers(tree(CLEAN)).violations).toEqual([])
  })

  it.each([
    // a layer importing one above it, whatever the layers
    [
      'layer-order',
      'src/ops/hash/hash.ts',
      "import type { Store } from '../../store/types.ts'\nexport const h = 1\n",
    ],
    [
      'layer-order',
      'src/ops/hash/hash.ts',
      "import { app } from '../../http/app.ts'\nexport const hash = app\n",
    ],
    ['layer-order', 'src/lib/ids.ts', "import { OPS } from '../ops/catalog.ts'\nexport const id = OPS\n"],
    ['layer-order', 'src/jobs/schema.ts', "import { r } from '../http/v1/hash.ts'\nexport const job = r\n"],
    ['layer-order', 'src/exec/dispatch.ts', "export { app } from '../http/app.ts'\n"],
    // a pool thread reaching the store, the pools or the keys
    [
      'layer-order',
      'workers/jobs.ts',
      "import type { Store } from '../src/store/types.ts'\nexport const j = 1\n",
    ],
    [
      'layer-order',
      'workers/jobs.ts',
      "export async function f() {\n  return import('../src/exec/pools.ts')\n}\n",
    ],
    // type imports are arrows too: the store taking a type from the keys above it
    [
      'layer-order',
      'src/store/types.ts',
      "import type { v } from '../keys/verify.ts'\nexport type S = typeof v\n",
    ],
    // a folder the order does not place
    ['unlayered', 'src/newthing/x.ts', 'export const x = 1\n'],
    // (hash.ts → hash/hash.ts is a known crossing: a new route file plants it)
    [
      'routes-take-schemas',
      'src/http/v1/planted.ts',
      "import { hash } from '../../ops/hash/hash.ts'\nexport const r = hash\n",
    ],
    [
      'routes-take-schemas',
      'src/http/v1/planted.ts',
      "export async function f() {\n  return import('../../ops/hash/hash.ts')\n}\n",
    ],
    // configuration read below the top
    [
      'config-read-at-the-top',
      'src/http/planted.ts',
      "import { loadConfig } from '../config.ts'\nexport const c = loadConfig\n",
    ],
    // a resource opened outside the composition root
    [
      'one-composition-root',
      'src/main/worker.ts',
      "import { openPools } from '../exec/open.ts'\nvoid openPools\n",
    ],
  ])('fails on a planted %s violation (%s)', (rule, path, source) => {
    const { violations } = checkLayers(tree({ ...CLEAN, [path]: source }))
    expect(violations.map((v) => [v.rule, v.from])).toContainEqual([rule, path])
  })

  it('allows `import type` of the config and of an open.ts below the top', () => {
    const typed = {
      ...CLEAN,
      'src/jobs/open.ts':
        "import type { openPools } from '../exec/open.ts'\nexport type P = typeof openPools\n",
      'src/http/c.ts': "import type { loadConfig } from '../config.ts'\nexport type C = typeof loadConfig\n",
    }
    expect(checkLayers(tree(typed)).violations).toEqual([])
  })

  it('enforces the order the doc writes: swapping two layers there changes what is refused', () => {
    const swapped = ORDER.map((l) =>
      l === 'src/keys/' ? 'src/store/' : l === 'src/store/' ? 'src/keys/' : l,
    )
    const { violations } = checkLayers(tree({ ...CLEAN, 'docs/architecture.md': doc(swapped) }))
    expect(violations.map((v) => [v.rule, v.from, v.to])).toEqual([
      ['layer-order', 'src/keys/verify.ts', 'src/store/types.ts'],
    ])
  })

  it('fails on folders that import each other (types count), siblings or a folder and its subfolder', () => {
    const ring = {
      ...CLEAN,
      'src/http/lane/a.ts': "import { b } from '../hooks/b.ts'\nexport const a = b\n",
      'src/http/hooks/b.ts': "import type { C } from '../body/c.ts'\nexport const b: C = 1\n",
      'src/http/body/c.ts': "import type { A } from '../lane/d.ts'\nexport type C = A\n",
      'src/http/lane/d.ts': 'export type A = number\n',
    }
    expect(checkLayers(tree(ring)).violations).toContainEqual(
      expect.objectContaining({
        rule: 'no-folder-cycles',
        to: 'src/http/body <-> src/http/hooks <-> src/http/lane',
      }),
    )
    const upAndDown = {
      ...CLEAN,
      'src/http/shared.ts': "import { d } from './lane/d.ts'\nexport const s = d\n",
      'src/http/lane/d.ts': "import type { S } from '../types.ts'\nexport const d: S = 1\n",
      'src/http/types.ts': 'export type S = number\n',
    }
    expect(checkLayers(tree(upAndDown)).violations).toContainEqual(
      expect.objectContaining({ rule: 'no-folder-cycles', to: 'src/http <-> src/http/lane' }),
    )
    // a folder's composition file (open.ts, app.ts, plugin.ts, index.ts) assembles its subfolders
    const composed = {
      ...CLEAN,
      'src/http/lane/d.ts': "import type { S } from '../types.ts'\nexport const d: S = 1\n",
      'src/http/types.ts': 'export type S = number\n',
      'src/http/app.ts':
        "import type { openRuntime } from '../runtime.ts'\nimport { r } from './v1/hash.ts'\nimport { d } from './lane/d.ts'\nexport const app = (x: typeof openRuntime) => [x, r, d]\n",
    }
    expect(checkLayers(tree(composed)).violations).toEqual([])
  })

  it('fails on an import cycle, and not on one closed only by `import type`', () => {
    const cyclic = {
      ...CLEAN,
      'src/exec/a.ts': "import { b } from './b.ts'\nexport const a = () => b\n",
      'src/exec/b.ts': "import { a } from './a.ts'\nexport const b = () => a\n",
    }
    const { violations } = checkLayers(tree(cyclic))
    expect(violations).toContainEqual(
      expect.objectContaining({ rule: 'no-cycles', to: 'src/exec/a.ts -> src/exec/b.ts' }),
    )
    const typeOnly = {
      ...CLEAN,
      'src/exec/a.ts': "import { b } from './b.ts'\nexport type A = number\nexport const a = () => b\n",
      'src/exec/b.ts': "import type { A } from './a.ts'\nexport const b = (x: A) => x\n",
    }
    expect(checkLayers(tree(typeOnly)).violations).toEqual([])
  })

  it('grandfathers no route import: routes take only the catalog, the descriptor types, the answer helpers, schemas, types and stream forms', () => {
    expect(KNOWN_ROUTE_IMPORTS).toEqual([])
    const real = checkLayers(ROOT)
    expect(real.violations).toEqual([])
    expect(real.known).toEqual([])
    // what a route may take from src/ops/: the catalog, a family's schema/types/stream, the shared types
    const allowed = checkLayers(
      tree({
        ...CLEAN,
        'src/ops/types.ts': 'export const ENCODINGS = []\n',
        'src/ops/hash/types.ts': 'export const A = []\n',
        'src/ops/hash/stream.ts': 'export const s = 1\n',
        'src/http/v1/r.ts':
          "import { ENCODINGS } from '../../ops/types.ts'\nimport { A } from '../../ops/hash/types.ts'\n" +
          "import { s } from '../../ops/hash/stream.ts'\nexport const r = [ENCODINGS, A, s]\n",
      }),
    )
    expect(allowed.violations).toEqual([])
    // and never an implementation, in a family or at the root
    const refused = checkLayers(
      tree({
        ...CLEAN,
        'src/ops/encoding.ts': 'export const e = 1\n',
        'src/http/v1/r.ts': "import { e } from '../../ops/encoding.ts'\nexport const r = e\n",
      }),
    )
    expect(refused.violations.map((v) => v.rule)).toEqual(['routes-take-schemas'])
  })

  it('exits 1 and names the violation from the command line', () => {
    const root = tree({ ...CLEAN, 'src/jobs/schema.ts': "import { r } from '../http/v1/hash.ts'\n" })
    const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' })
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('layer-order: src/jobs/schema.ts -> src/http/v1/hash.ts')
    const ok = spawnSync(process.execPath, [SCRIPT, tree(CLEAN)], { encoding: 'utf8' })
    expect(ok.status).toBe(0)
  })
})
