// The import boundaries of src/ (docs/architecture.md, "Layers"), checked on the resolved path of every
// import, as part of `npm run lint`. Run: node scripts/check-layers.ts [root]
//
// Why not dependency-cruiser: it parses TypeScript with the `typescript` package (versions 2-6) and this
// repository type-checks with TypeScript 7, which has no JavaScript API. The imports here are simple
// (static `import`/`export … from`, `import()`, `new URL(…, import.meta.url)`, always relative, always with
// the extension), so reading them with a regular expression over the source is exact for this code base.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, posix, relative, sep } from 'node:path'

export interface Edge {
  from: string // repo-relative, e.g. src/http/v1/hash.ts
  to: string
  typeOnly: boolean // `import type` / `export type`: erased, so it is no runtime dependency and no cycle
}

export interface Violation {
  rule: string
  from: string
  to: string
  message: string
}

// Known crossings of the "routes take schemas, not implementations" rule, present when the rule was
// written: each is debt to pay by moving the constant or type the route needs into the family's schema.ts
// or types.ts. Listed here (not silenced by a comment) so the list can only shrink: a new crossing fails.
export const KNOWN_ROUTE_IMPORTS: readonly string[] = []

const IMPORT =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"\n]+)['"]|import\(\s*['"]([^'"\n]+)['"]\s*\)|new URL\(\s*['"]([^'"\n]+\.ts)['"]\s*,\s*import\.meta\.url/g

function listSources(root: string, dir: string, out: string[]): string[] {
  if (!existsSync(join(root, dir))) return out
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = posix.join(dir, entry.name)
    if (entry.isDirectory()) listSources(root, path, out)
    else if (entry.name.endsWith('.ts')) out.push(path)
  }
  return out
}

export function readEdges(root: string): Edge[] {
  const edges: Edge[] = []
  for (const file of [...listSources(root, 'src', []), ...listSources(root, 'workers', [])]) {
    const text = readFileSync(join(root, file), 'utf8')
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[3] ?? m[4] ?? m[5]
      if (!spec?.startsWith('.')) continue // packages and node: builtins
      const to = posix.normalize(posix.join(posix.dirname(file), spec))
      edges.push({ from: file, to, typeOnly: m[2] !== undefined })
    }
  }
  return edges
}

const under = (path: string, dir: string) => path.startsWith(`${dir}/`)
const opsEntry = (path: string) =>
  path === 'src/ops/registry.ts' || /^src\/ops\/(.+\/)?(schema|types|stream)\.ts$/.test(path)

function edgeViolations(e: Edge): Violation[] {
  const out: Violation[] = []
  const v = (rule: string, message: string) => out.push({ rule, from: e.from, to: e.to, message })
  if (
    under(e.from, 'src/ops') &&
    !under(e.to, 'src/ops') &&
    !under(e.to, 'src/lib') &&
    e.to !== 'src/errors.ts'
  )
    v('ops-are-pure', 'src/ops/ may import only src/ops/, src/lib/ and src/errors.ts')
  if (
    under(e.from, 'workers') &&
    !under(e.to, 'workers') &&
    !under(e.to, 'src/ops') &&
    !under(e.to, 'src/lib') &&
    e.to !== 'src/errors.ts'
  )
    v('workers-are-pure', 'workers/ may import only workers/, src/ops/, src/lib/ and src/errors.ts')
  if (under(e.from, 'src/lib') && !under(e.to, 'src/lib') && e.to !== 'src/errors.ts')
    v('lib-is-a-leaf', 'src/lib/ may import only src/lib/ and src/errors.ts')
  if (under(e.to, 'src/http') && !under(e.from, 'src/http') && !under(e.from, 'src/main'))
    v(
      under(e.from, 'src/jobs') ? 'jobs-not-http' : 'only-main-imports-http',
      'only src/main/ (and src/http/ itself) may import src/http/',
    )
  if (under(e.from, 'src/http') && under(e.to, 'src/ops') && !opsEntry(e.to))
    v(
      'routes-take-schemas',
      'src/http/ may take from src/ops/ only registry.ts (run an op through exec) and a family’s schema.ts, ' +
        'types.ts or stream.ts',
    )
  return out
}

// Tarjan's strongly connected components over runtime imports: every component of more than one module
// (or a module importing itself) is a cycle.
function cycles(edges: Edge[]): string[][] {
  const next = new Map<string, string[]>()
  for (const e of edges) if (!e.typeOnly) next.set(e.from, [...(next.get(e.from) ?? []), e.to])
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  let counter = 0
  const visit = (n: string) => {
    index.set(n, counter)
    low.set(n, counter)
    counter++
    stack.push(n)
    onStack.add(n)
    for (const m of next.get(n) ?? []) {
      if (!index.has(m)) {
        visit(m)
        low.set(n, Math.min(low.get(n)!, low.get(m)!))
      } else if (onStack.has(m)) low.set(n, Math.min(low.get(n)!, index.get(m)!))
    }
    if (low.get(n) === index.get(n)) {
      const component: string[] = []
      let m: string
      do {
        m = stack.pop()!
        onStack.delete(m)
        component.push(m)
      } while (m !== n)
      if (component.length > 1 || (next.get(n) ?? []).includes(n)) found.push(component.sort())
    }
  }
  for (const n of [...next.keys()].sort()) if (!index.has(n)) visit(n)
  return found
}

export function checkLayers(root: string): { violations: Violation[]; known: Violation[]; modules: number } {
  const edges = readEdges(root)
  const all = edges.flatMap(edgeViolations)
  for (const component of cycles(edges))
    all.push({
      rule: 'no-cycles',
      from: component[0]!,
      to: component.join(' -> '),
      message: 'import cycle (runtime imports; `import type` does not count)',
    })
  const isKnown = (v: Violation) =>
    v.rule === 'routes-take-schemas' && KNOWN_ROUTE_IMPORTS.includes(`${v.from} -> ${v.to}`)
  return {
    violations: all.filter((v) => !isKnown(v)),
    known: all.filter(isKnown),
    modules: new Set(edges.map((e) => e.from)).size,
  }
}

if (import.meta.main) {
  const root = process.argv[2] ?? process.cwd()
  const { violations, known, modules } = checkLayers(root)
  for (const v of violations) console.error(`${v.rule}: ${v.from} -> ${v.to}\n  ${v.message}`)
  const where = relative(process.cwd(), root).split(sep).join('/') || '.'
  if (violations.length > 0) {
    console.error(`check-layers: ${violations.length} violation(s) in ${where} (see docs/architecture.md)`)
    process.exit(1)
  }
  console.log(
    `check-layers: ${modules} modules, no violations (${known.length} known route imports to pay off)`,
  )
}
