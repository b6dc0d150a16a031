import { CATALOG } from '../ops/catalog.ts'

// Endpoint families a key can be restricted to: the ops' families (OpDescriptor.family, in the catalog's
// order), plus async jobs.
export const FAMILIES: readonly string[] = [...new Set(CATALOG.ops.map((op) => op.family)), 'jobs']
export type Family = string
