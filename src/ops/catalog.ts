import { readdirSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { AnyOp, OpCap } from './define.ts'

// Every operation, found by its file: `src/ops/**/<name>.op.ts`, each exporting its descriptor as default
// (src/ops/define.ts). Nothing lists them by hand, so adding an op is adding its file. The gateway, its pool
// threads (workers/entry.ts) and the job workers load the same catalog; a test may add ops of its own
// (catalogWith), which a pool's threads then load too (their modules travel in the pool's thread data).

const ROOT = new URL('./', import.meta.url)
const SUFFIX = '.op.ts'

function opFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => {
      const path = `${dir}${entry.name}`
      if (entry.isDirectory()) return opFiles(`${path}/`)
      return entry.name.endsWith(SUFFIX) ? [pathToFileURL(path).href] : []
    })
}

export interface Catalog {
  readonly ops: readonly AnyOp[]
  // the op of this name, or undefined
  named(name: string): AnyOp | undefined
  // the modules beyond the built-in ones that declared some of these ops (a pool's threads load them too)
  readonly extraModules: readonly string[]
}

async function load(modules: readonly string[]): Promise<AnyOp[]> {
  const loaded = await Promise.all(modules.map((m) => import(m) as Promise<{ default?: AnyOp }>))
  return loaded.map((m, i) => {
    if (!m.default?.name) throw new Error(`${modules[i]} exports no operation (export default defineOp(...))`)
    return m.default
  })
}

// What no type can check across files: one op per name, route and operationId, one declaration per cap.
function checked(ops: readonly AnyOp[]): Map<string, AnyOp> {
  const byName = new Map<string, AnyOp>()
  const taken = new Map<string, string>()
  const caps = new Map<string, OpCap>()
  const claim = (what: string, by: string) => {
    const other = taken.get(what)
    if (other !== undefined) throw new Error(`${what} is declared by both ${other} and ${by}`)
    taken.set(what, by)
  }
  for (const op of ops) {
    claim(`op name ${op.name}`, op.name)
    claim(`route POST ${op.http.path}`, op.name)
    claim(`operationId ${op.http.operationId}`, op.name)
    // one declaration per cap; ops may share one by declaring the same object (password.hash and
    // password.verify: a stored hash is capped as a new one is)
    for (const [name, cap] of Object.entries(op.caps ?? {})) {
      const declared = caps.get(name)
      if (declared !== undefined && declared !== cap)
        throw new Error(`cap ${name} is declared twice (${op.name})`)
      caps.set(name, cap)
    }
    byName.set(op.name, op)
  }
  return byName
}

function makeCatalog(ops: readonly AnyOp[], extraModules: readonly string[]): Catalog {
  const byName = checked(ops)
  return { ops, named: (name) => byName.get(name), extraModules }
}

const BUILT_IN = await load(opFiles(fileURLToPath(ROOT)))

// The built-in operations.
export const CATALOG: Catalog = makeCatalog(BUILT_IN, [])

// The built-in operations and those declared by these modules (file URLs).
export async function catalogWith(extraModules: readonly string[]): Promise<Catalog> {
  if (extraModules.length === 0) return CATALOG
  return makeCatalog([...BUILT_IN, ...(await load(extraModules))], extraModules)
}
