import { jsonEqual } from '../value.ts'
import { getOwn, isJsonObject, type Json, type JsonPatchOp, pointerToken } from './values.ts'

function coarse(left: Json, right: Json, path: string, ops: JsonPatchOp[]): void {
  if (jsonEqual(left, right)) return
  if (isJsonObject(left) && isJsonObject(right)) {
    for (const key of Object.keys(left)) {
      if (!Object.hasOwn(right, key)) ops.push({ op: 'remove', path: `${path}/${pointerToken(key)}` })
    }
    for (const key of Object.keys(right)) {
      const from = getOwn(left, key)
      const to = right[key]!
      if (from === undefined) ops.push({ op: 'add', path: `${path}/${pointerToken(key)}`, value: to })
      else coarse(from, to, `${path}/${pointerToken(key)}`, ops)
    }
    return
  }
  if (Array.isArray(left) && Array.isArray(right) && left.length === right.length) {
    for (let i = 0; i < left.length; i++) coarse(left[i]!, right[i]!, `${path}/${i}`, ops)
    return
  }
  ops.push({ op: 'replace', path, value: right })
}

// The safety net behind "applying json_patch to left gives right, always": when the patch derived
// from the delta does not reproduce `right` (a differ bug), this patch is returned instead. It is
// correct by construction: object members are added, removed or descended into, equal-length arrays
// are compared index by index, and anything else that differs is replaced whole.
export function coarseJsonPatch(left: Json, right: Json): JsonPatchOp[] {
  const ops: JsonPatchOp[] = []
  coarse(left, right, '', ops)
  return ops
}
