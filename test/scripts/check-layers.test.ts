import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkLayers, KNOWN_ROUTE_IMPORTS } from '../../scripts/check-layers.ts'

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

// a minimal tree that keeps every rule
const CLEAN = {
  'src/errors.ts': 'export const E = 1\n',
  'src/lib/ids.ts': "import { E } from '../errors.ts'\nexport const id = E\n",
  'src/ops/registry.ts': "import { hash } from './hash/hash.ts'\nexport const OPS = { hash }\n",
  'src/ops/hash/hash.ts': "import { id } from '../../lib/ids.ts'\nexport const hash = id\n",
  'src/ops/hash/schema.ts': "import { z } from 'zod'\nexport const body = z.object({})\n",
  'src/http/v1/hash.ts':
    "import { OPS } from '../../ops/registry.ts'\nimport { body } from '../../ops/hash/schema.ts'\nexport const r = [OPS, body]\n",
  'src/http/app.ts': "import { r } from './v1/hash.ts'\nexport const app = r\n",
  'src/jobs/schema.ts': "import { body } from '../ops/hash/schema.ts'\nexport const job = body\n",
  'src/main/gateway.ts': "import { app } from '../http/app.ts'\nvoid app\n",
}

describe('check-layers (the import boundaries of src/)', () => {
  it('passes on the repository itself, in well under 10 s', () => {
    const started = performance.now()
    const { violations, modules } = checkLayers(ROOT)
    expect(performance.now() - started).toBeLessThan(10_000)
    expect(violations).toEqual([])
    expect(modules).toBeGreaterThan(100)
  })

  it('passes on a clean tree', () => {
    expect(checkLayers(tree(CLEAN)).violations).toEqual([])
  })

  it.each([
    [
      'ops-are-pure',
      'src/ops/hash/hash.ts',
      "import { s } from '../../store/types.ts'\nexport const hash = s\n",
    ],
    [
      'ops-are-pure',
      'src/ops/hash/hash.ts',
      "import { app } from '../../http/app.ts'\nexport const hash = app\n",
    ],
    ['lib-is-a-leaf', 'src/lib/ids.ts', "import { OPS } from '../ops/registry.ts'\nexport const id = OPS\n"],
    ['jobs-not-http', 'src/jobs/schema.ts', "import { r } from '../http/v1/hash.ts'\nexport const job = r\n"],
    ['only-main-imports-http', 'src/exec/dispatch.ts', "export { app } from '../http/app.ts'\n"],
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
  ])('fails on a planted %s violation (%s)', (rule, path, source) => {
    const { violations } = checkLayers(tree({ ...CLEAN, [path]: source }))
    expect(violations.map((v) => [v.rule, v.from])).toContainEqual([rule, path])
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

  it('grandfathers no route import: routes take only the registry, schemas, types and stream forms', () => {
    expect(KNOWN_ROUTE_IMPORTS).toEqual([])
    const real = checkLayers(ROOT)
    expect(real.violations).toEqual([])
    expect(real.known).toEqual([])
    // what a route may take from src/ops/: the registry, a family's schema/types/stream, the shared types
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
    expect(r.stderr).toContain('jobs-not-http: src/jobs/schema.ts -> src/http/v1/hash.ts')
    const ok = spawnSync(process.execPath, [SCRIPT, tree(CLEAN)], { encoding: 'utf8' })
    expect(ok.status).toBe(0)
  })
})
