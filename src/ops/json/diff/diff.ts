import type { Delta } from 'jsondiffpatch'
import { jsonEqual } from '../value.ts'
import { computeDelta } from './delta.ts'
import { coarseJsonPatch } from './fallback.ts'
import { decodeDelta, encodeDocument, encodeKey, inspectDocument } from './keys.ts'
import { deltaToJsonPatch } from './patch-format.ts'
import { type DiffStats, deltaStats } from './stats.ts'
import type { Json, JsonPatchOp } from './values.ts'
import { patchGives } from './verify.ts'

export const DIFF_OUTPUTS = ['delta', 'json_patch', 'both'] as const
export type DiffOutput = (typeof DIFF_OUTPUTS)[number]

export interface JsonDiffInput {
  left: unknown
  right: unknown
  array_key?: string
  detect_moves?: boolean
  output?: DiffOutput
}

export interface JsonDiffResult {
  equal: boolean
  delta?: Delta | Record<string, never>
  json_patch?: JsonPatchOp[]
  stats: DiffStats
}

function diffDelta(left: Json, right: Json, input: JsonDiffInput, escapeKeys: boolean): Delta {
  const detectMoves = input.detect_moves ?? true
  if (!escapeKeys) return computeDelta(left, right, { arrayKey: input.array_key, detectMoves })
  const arrayKey = input.array_key === undefined ? undefined : encodeKey(input.array_key)
  return decodeDelta(computeDelta(encodeDocument(left), encodeDocument(right), { arrayKey, detectMoves }))
}

// The patch is applied to `left` (copy-on-write, with the semantics of /v1/json/patch: see
// verify.ts) before it is returned; if it does not give `right` exactly, the coarser patch
// of coarseJsonPatch() is returned instead (see fallback.ts).
export function provenPatch(delta: Delta, left: Json, right: Json): JsonPatchOp[] {
  try {
    const ops = deltaToJsonPatch(delta, left)
    if (patchGives(left, ops, right)) return ops
  } catch {
    // an inconsistent delta is handled exactly like a patch that fails the check
  }
  return coarseJsonPatch(left, right)
}

export function jsonDiff(input: JsonDiffInput): JsonDiffResult {
  const left = input.left as Json
  const right = input.right as Json
  const leftShape = inspectDocument(left, 'left')
  const rightShape = inspectDocument(right, 'right')
  const output = input.output ?? 'delta'
  const equal = jsonEqual(left, right)
  const escapeKeys = leftShape.reservedKeys || rightShape.reservedKeys
  const delta = equal ? undefined : diffDelta(left, right, input, escapeKeys)
  return {
    equal,
    ...(output === 'json_patch' ? {} : { delta: delta ?? {} }),
    ...(output === 'delta' ? {} : { json_patch: equal ? [] : provenPatch(delta, left, right) }),
    stats: deltaStats(delta),
  }
}
