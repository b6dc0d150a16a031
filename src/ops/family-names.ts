import { existsSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

// The families by their directories alone, `src/ops/<family>/family.ts`, sorted by name: what names the
// families without loading an op (the admin CLI, which starts in a third of the time without the ops). The
// catalog checks that every op sits in its family's directory and every family has an op, so these are the
// ops' families, in the catalog's order.
export const FAMILY_FILE = 'family.ts'
const OPS_DIR = fileURLToPath(new URL('./', import.meta.url))

export function familyNames(dir: string = OPS_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(`${dir}${entry.name}/${FAMILY_FILE}`))
    .map((entry) => entry.name)
    .sort()
}
