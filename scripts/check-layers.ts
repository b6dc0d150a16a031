// The import boundaries of src/ and workers/ (docs/architecture.md, "Layers"), checked on the resolved path
// of every import, as part of `npm run lint`. Run: node scripts/check-layers.ts [root]
//
// The order of the layers is read from docs/architecture.md itself (the first table of its "Layers"
// section, top to bottom), so the page and the check cannot disagree: a layer may import only the layers
// below it, every source file belongs to a layer, and a new folder must be given its place there first.
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

// The trees whose imports are checked.
export const SOURCE_ROOTS = ['src', 'workers'] as const

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

export function sourceFiles(root: string): string[] {
  return SOURCE_ROOTS.flatMap((dir) => listSources(root, dir, []))
}

export function readEdges(root: string): Edge[] {
  const edges: Edge[] = []
  for (const file of sourceFiles(root)) {
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

// The layers, top to bottom: the backticked path in the first cell of each row of the first table under
// the "## Layers" heading of docs/architecture.md. A folder ends with a slash (`src/http/`), a file does
// not (`src/config.ts`).
export function readLayers(root: string): string[] {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8')
  const section = doc.split(/^## /m).find((s) => s.startsWith('Layers'))
  if (!section) throw new Error('docs/architecture.md has no "## Layers" section')
  const layers: string[] = []
  let inTable = false
  for (const line of section.split('\n')) {
    const row = /^\|\s*`([^`]+)`\s*\|/.exec(line)
    if (row) {
      inTable = true
      layers.push(row[1]!)
    } else if (inTable && !line.startsWith('|')) break
  }
  if (layers.length === 0) throw new Error('the "Layers" section of docs/architecture.md lists no layer')
  return layers
}

// The layer a file belongs to: the most specific one that holds it (index 0 is the top).
export function layerOf(file: string, layers: readonly string[]): number | undefined {
  let best: number | undefined
  for (const [i, layer] of layers.entries()) {
    const holds = layer.endsWith('/') ? file.startsWith(layer) : file === layer
    if (holds && (best === undefined || layer.length > layers[best]!.length)) best = i
  }
  return best
}

const under = (path: string, dir: string) => path.startsWith(`${dir}/`)
// what the HTTP layer takes of the ops: the catalog (the descriptors its routes are derived from), the
// descriptor's types, the shared shaping of a body and its answer, and a family's schemas, types and
// stream forms; never an op's implementation (an op runs through src/exec/)
const OPS_ENTRIES = new Set(['src/ops/catalog.ts', 'src/ops/define.ts', 'src/ops/answer.ts'])
const opsEntry = (path: string) =>
  OPS_ENTRIES.has(path) || /^src\/ops\/(.+\/)?(schema|types|stream)\.ts$/.test(path)

function edgeViolations(e: Edge, layers: readonly string[]): Violation[] {
  const out: Violation[] = []
  const v = (rule: string, message: string) => out.push({ rule, from: e.from, to: e.to, message })
  const from = layerOf(e.from, layers)
  const to = layerOf(e.to, layers)
  // an import type counts: it is an arrow between layers too, only not a runtime one
  if (from !== undefined && to !== undefined && to < from)
    v(
      'layer-order',
      `${layers[from]} may import only itself and the layers below it; ${layers[to]} is above it ` +
        '(docs/architecture.md, "Layers")',
    )
  if (under(e.from, 'src/http') && under(e.to, 'src/ops') && !opsEntry(e.to))
    v(
      'routes-take-schemas',
      'src/http/ may take from src/ops/ only catalog.ts, define.ts and answer.ts (ops run through exec) and a ' +
        'family’s schema.ts, types.ts or stream.ts',
    )
  // configuration is read by the processes and their composition root, and handed down: the rest take
  // its types only
  if (e.to === 'src/config.ts' && !e.typeOnly && !under(e.from, 'src/main') && e.from !== 'src/runtime.ts')
    v(
      'config-read-at-the-top',
      'only src/main/ and src/runtime.ts read the configuration (src/config.ts); the rest `import type`',
    )
  // every resource a process opens is opened by the composition root, through its subsystem's open.ts
  const opener = posix.basename(e.to) === 'open.ts' && posix.dirname(e.to) !== posix.dirname(e.from)
  if (opener && !e.typeOnly && e.from !== 'src/runtime.ts')
    v('one-composition-root', 'only src/runtime.ts opens resources (imports a subsystem’s open.ts)')
  return out
}

// The folders' graph: a folder imports another when one of its files imports one of the other's, types
// included (a folder and its subfolder are two folders).
// A file that is a layer of its own (src/errors.ts, src/config.ts, src/runtime.ts) stands for itself. A
// folder's composition file (its subsystem's open.ts, a listener's app.ts, a route folder's plugin.ts or
// index.ts) assembles the folder's subfolders: its imports of them are not arrows back up.
const COMPOSITION = new Set(['open.ts', 'app.ts', 'admin-app.ts', 'plugin.ts', 'index.ts'])

function folderEdges(edges: Edge[], layers: readonly string[]): Edge[] {
  const unit = (file: string) => (layers.includes(file) ? file : posix.dirname(file))
  const seen = new Set<string>()
  const out: Edge[] = []
  for (const e of edges) {
    const from = unit(e.from)
    const to = unit(e.to)
    if (COMPOSITION.has(posix.basename(e.from)) && to.startsWith(`${from}/`)) continue
    if (from === to || seen.has(`${from} ${to}`)) continue
    seen.add(`${from} ${to}`)
    out.push({ from, to, typeOnly: false })
  }
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

export function checkLayers(
  root: string,
  layers: readonly string[] = readLayers(root),
): { violations: Violation[]; known: Violation[]; modules: number } {
  const edges = readEdges(root)
  const all: Violation[] = []
  for (const file of sourceFiles(root))
    if (layerOf(file, layers) === undefined)
      all.push({
        rule: 'unlayered',
        from: file,
        to: file,
        message: 'every source file belongs to a layer: give its folder a place in docs/architecture.md',
      })
  all.push(...edges.flatMap((e) => edgeViolations(e, layers)))
  for (const component of cycles(edges))
    all.push({
      rule: 'no-cycles',
      from: component[0]!,
      to: component.join(' -> '),
      message: 'import cycle (runtime imports; `import type` does not count)',
    })
  for (const component of cycles(folderEdges(edges, layers)))
    all.push({
      rule: 'no-folder-cycles',
      from: component[0]!,
      to: component.join(' <-> '),
      message:
        'folders that import each other (a folder and its subfolders are folders of their own; `import type` ' +
        'counts): move what both need below both',
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
