import { CATALOG } from '../../src/ops/catalog.ts'
import type { AnyOp } from '../../src/ops/define.ts'

// A built-in op by its name, for tests that pick one (src/ops/catalog.ts).
export function opNamed(name: string): AnyOp {
  const op = CATALOG.named(name)
  if (!op) throw new Error(`no op named ${name}`)
  return op
}
