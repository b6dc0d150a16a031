import { readdirSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { AnyOp, FamilyDescriptor, OpCap } from './define.ts'
import { FAMILY_FILE, familyNames } from './family-names.ts'

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

export interface Family extends FamilyDescriptor {
  // the directory's name, the ops' `family`
  name: string
}

export interface Catalog {
  readonly ops: readonly AnyOp[]
  // the families the ops belong to, in the catalog's (directory) order
  readonly families: readonly Family[]
  // the family of this name (one every op names: checked when the catalog is made)
  family(name: string): Family
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

const familyFile = (dir: string, name: string) => pathToFileURL(`${dir}${name}/${FAMILY_FILE}`).href

async function loadFamilies(dir: string): Promise<Family[]> {
  const names = familyNames(dir)
  const loaded = await Promise.all(
    names.map((name) => import(familyFile(dir, name)) as Promise<{ default?: Partial<FamilyDescriptor> }>),
  )
  return loaded.map((m, i) => {
    const { tag, description } = m.default ?? {}
    if (typeof tag !== 'string' || !tag || typeof description !== 'string' || !description)
      throw new Error(`src/ops/${names[i]}/${FAMILY_FILE} exports no { tag, description }`)
    return { name: names[i]!, tag, description }
  })
}

// What no type can check across files: one op per name, route and operationId, one declaration per cap,
// and a family (src/ops/<family>/family.ts) for every op.
function checked(ops: readonly AnyOp[], families: ReadonlyMap<string, Family>): Map<string, AnyOp> {
  const byName = new Map<string, AnyOp>()
  const taken = new Map<string, string>()
  const caps = new Map<string, OpCap>()
  const claim = (what: string, by: string) => {
    const other = taken.get(what)
    if (other !== undefined) throw new Error(`${what} is declared by both ${other} and ${by}`)
    taken.set(what, by)
  }
  for (const op of ops) {
    if (!families.has(op.family))
      throw new Error(
        `op ${op.name} is of family ${op.family}, which has no src/ops/${op.family}/${FAMILY_FILE}`,
      )
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
  const byFamily = new Map(FAMILIES.map((f) => [f.name, f]))
  const byName = checked(ops, byFamily)
  const used = new Set(ops.map((op) => op.family))
  return {
    ops,
    families: FAMILIES.filter((f) => used.has(f.name)),
    family: (name) => byFamily.get(name)!,
    named: (name) => byName.get(name),
    extraModules,
  }
}

// A built-in op sits in its family's directory (`files`: the ops' module URLs, in order), and every family
// has one: so the families named from the directories alone (family-names.ts, for what must not load the
// ops) are the ops' families.
export function checkInTheirFamilies(
  ops: readonly AnyOp[],
  files: readonly string[],
  families: readonly string[],
  root: URL = ROOT,
): void {
  ops.forEach((op, i) => {
    if (!files[i]!.startsWith(new URL(`${op.family}/`, root).href))
      throw new Error(
        `${files[i]} declares op ${op.name} of family ${op.family}, outside src/ops/${op.family}/`,
      )
  })
  for (const name of families)
    if (!ops.some((op) => op.family === name)) throw new Error(`src/ops/${name}/ declares no operation`)
}

const FAMILIES = await loadFamilies(fileURLToPath(ROOT))
const BUILT_IN_FILES = opFiles(fileURLToPath(ROOT))
const BUILT_IN = await load(BUILT_IN_FILES)
checkInTheirFamilies(
  BUILT_IN,
  BUILT_IN_FILES,
  FAMILIES.map((f) => f.name),
)

// Every module the catalog loads by its file, found as it finds them (file URLs): what a pool thread loads
// besides what these and its entry import (src/exec/thread-sources.ts).
export function catalogFiles(): string[] {
  const dir = fileURLToPath(ROOT)
  return [...familyNames(dir).map((name) => familyFile(dir, name)), ...opFiles(dir)]
}

// The built-in operations.
export const CATALOG: Catalog = makeCatalog(BUILT_IN, [])

// The built-in operations and those declared by these modules (file URLs).
export async function catalogWith(extraModules: readonly string[]): Promise<Catalog> {
  if (extraModules.length === 0) return CATALOG
  return makeCatalog([...BUILT_IN, ...(await load(extraModules))], extraModules)
}
