import type { Delta } from 'jsondiffpatch'
import { arrayDeltaToOps } from './patch-array.ts'
import { getOwn, isJsonObject, type Json, type JsonPatchOp, pointerToken } from './values.ts'

// Our own delta → RFC 6902 conversion. jsondiffpatch's jsonpatch formatter sequences array moves
// heuristically: it had wrong indices with several moves (upstream issue #380), still emits extra
// moves, and in 0.7.7 throws "failed to apply all array moves" on a shuffled 1,000-item array.
// This one emits exactly one operation per delta entry (none for a move that lands in place).

function leafToOp(leaf: unknown[], path: string, ops: JsonPatchOp[]): void {
  if (leaf.length === 1) ops.push({ op: 'add', path, value: leaf[0] as Json })
  else if (leaf.length === 2) ops.push({ op: 'replace', path, value: leaf[1] as Json })
  else if (leaf[2] === 0) ops.push({ op: 'remove', path })
  else throw new Error(`delta leaf type ${String(leaf[2])} has no RFC 6902 form at ${path || '/'}`)
}

function convert(delta: Delta, left: Json | undefined, path: string, ops: JsonPatchOp[]): void {
  if (delta === undefined) return
  if (Array.isArray(delta)) {
    leafToOp(delta, path, ops)
    return
  }
  if ((delta as { _t?: unknown })._t === 'a') {
    if (!Array.isArray(left)) throw new Error(`array delta against a non-array at ${path || '/'}`)
    const nested = arrayDeltaToOps(delta as Record<string, unknown>, left, path, ops)
    for (const change of nested) convert(change.delta, change.left, `${path}/${change.index}`, ops)
    return
  }
  if (!isJsonObject(left)) throw new Error(`object delta against a non-object at ${path || '/'}`)
  const members = delta as Record<string, Delta>
  for (const key of Object.keys(members)) {
    convert(members[key], getOwn(left, key), `${path}/${pointerToken(key)}`, ops)
  }
}

export function deltaToJsonPatch(delta: Delta, left: Json): JsonPatchOp[] {
  const ops: JsonPatchOp[] = []
  convert(delta, left, '', ops)
  return ops
}
