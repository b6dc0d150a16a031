import fc from 'fast-check'
import {
  isJsonObject,
  type Json,
  type JsonObject,
  type JsonPatchOp,
  setOwn,
} from '../../../../src/ops/json/diff/values.ts'
import { applyJsonPatch } from '../../../../src/ops/json/patch/patch.ts'

// Keys that break naive object handling: prototype members, the escape character our key
// renaming uses, jsondiffpatch's own markers ("_t", "_0"), and JSON Pointer specials.
export const RESERVED_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty']
export const SAFE_KEYS = ['a', 'b', 'c', 'id', '_t', '_0', '0', 'a/b', '~1', '', '\u0000x']

// JSON.parse is what the endpoint sees: own "__proto__" properties, no -0.
export function viaJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
}

function objectOf(entries: [string, Json][]): JsonObject {
  const out: JsonObject = {}
  for (const [key, value] of entries) setOwn(out, key, value)
  return out
}

const scalar: fc.Arbitrary<Json> = fc.oneof(
  fc.integer({ min: -2, max: 3 }),
  fc.constantFrom<Json>(true, false, null, 'x', 'y', '', 'a long string that is over sixty chars '.repeat(2)),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
)

export function jsonDocument(keys: readonly string[]): fc.Arbitrary<Json> {
  const key = fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 2 }))
  const { value } = fc.letrec<{ value: Json; array: Json[]; object: JsonObject }>((tie) => ({
    value: fc.oneof({ depthSize: 'small', maxDepth: 4 }, scalar, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 6 }),
    object: fc.array(fc.tuple(key, tie('value')), { maxLength: 5 }).map(objectOf),
  }))
  return value.map(viaJson)
}

interface Edit {
  steps: number[]
  kind: number
  a: number
  b: number
  value: Json
}

function applyEdit(node: Json, edit: Edit, keys: readonly string[], step: number): Json {
  const s = edit.steps[step]
  if (Array.isArray(node)) {
    if (s !== undefined && node.length > 0 && s % 3 !== 0) {
      const i = s % node.length
      node[i] = applyEdit(node[i]!, edit, keys, step + 1)
      return node
    }
    const at = edit.a % (node.length + 1)
    const j = edit.b % Math.max(node.length, 1)
    const kind = node.length === 0 ? 0 : edit.kind % 4
    if (kind === 0) node.splice(at, 0, edit.value)
    else if (kind === 1) node.splice(j, 1)
    else if (kind === 2) node.splice(edit.a % node.length, 0, ...node.splice(j, 1))
    else node[j] = edit.value
    return node
  }
  if (isJsonObject(node)) {
    const names = Object.keys(node)
    if (s !== undefined && names.length > 0 && s % 3 !== 0) {
      const name = names[s % names.length]!
      setOwn(node, name, applyEdit(node[name]!, edit, keys, step + 1))
    } else if (edit.kind % 2 === 0 || names.length === 0) {
      setOwn(node, keys[edit.a % keys.length]!, edit.value)
    } else {
      delete node[names[edit.b % names.length]!]
    }
    return node
  }
  return edit.kind % 3 === 0 ? node : edit.value
}

// A document and a version of it with random insertions, deletions, moves and nested edits, or
// (sometimes) an unrelated second document.
export function documentPair(keys: readonly string[]): fc.Arbitrary<{ left: Json; right: Json }> {
  const doc = jsonDocument(keys)
  const edit = fc.record({
    steps: fc.array(fc.nat(), { maxLength: 4 }),
    kind: fc.nat(),
    a: fc.nat(),
    b: fc.nat(),
    value: doc,
  })
  const edited = fc.tuple(doc, fc.array(edit, { minLength: 1, maxLength: 5 })).map(([left, edits]) => {
    let right = structuredClone(left)
    for (const e of edits) right = applyEdit(right, e, keys, 0)
    return { left, right: viaJson(right) }
  })
  const unrelated = fc.tuple(doc, doc).map(([left, right]) => ({ left, right }))
  return fc.oneof({ weight: 4, arbitrary: edited }, { weight: 1, arbitrary: unrelated })
}

// Lists of records with an "id" (plus a few without), reordered, thinned, extended and edited.
export const keyedListPair: fc.Arbitrary<{ left: Json; right: Json }> = fc
  .tuple(
    fc.uniqueArray(fc.record({ id: fc.integer({ min: 0, max: 20 }), v: fc.integer({ min: 0, max: 2 }) }), {
      selector: (item) => item.id,
      maxLength: 14,
    }),
    fc.array(fc.record({ name: fc.constantFrom('p', 'q'), v: fc.integer({ min: 0, max: 2 }) }), {
      maxLength: 2,
    }),
  )
  .chain(([withId, withoutId]) => {
    const all: Json[] = [...withId, ...withoutId]
    return fc.tuple(
      fc.subarray(all),
      fc.oneof(fc.shuffledSubarray(all), fc.subarray(all)),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 3 })), { maxLength: 3 }),
    )
  })
  .map(([left, right, edits]) => {
    const changed = structuredClone(right) as { v: number }[]
    for (const [i, v] of edits) if (changed.length > 0) changed[i % changed.length]!.v = v
    return { left: viaJson({ list: left, n: 1 }), right: viaJson({ list: changed, n: 1 }) }
  })

// Permutations with removals and insertions (duplicates included), at the root and nested: the
// move-heavy cases where RFC 6902 indices are easiest to get wrong.
const reorderedList: fc.Arbitrary<{ left: Json[]; right: Json[] }> = fc
  .tuple(
    fc.array(fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constantFrom<Json>({ k: 1 }, [1], 'z')), {
      maxLength: 12,
    }),
    fc.array(fc.integer({ min: 20, max: 25 }), { maxLength: 3 }),
  )
  .chain(([items, fresh]) =>
    fc.tuple(
      fc.constant(items),
      fc.shuffledSubarray([...items, ...fresh], { minLength: Math.max(0, items.length - 3) }),
    ),
  )
  .map(([left, right]) => ({ left: viaJson(left), right: viaJson(right) }))

export const reorderedPair: fc.Arbitrary<{ left: Json; right: Json }> = fc.oneof(
  reorderedList,
  fc.tuple(reorderedList, reorderedList).map(([outer, inner]) => ({
    left: { list: [...outer.left, { inner: inner.left }], x: 1 },
    right: { list: [...outer.right, { inner: inner.right }], x: 1 },
  })),
)

// RFC 6902 apply of the /v1/json/patch operation (it works on a copy)
export function patched(document: Json, ops: readonly JsonPatchOp[]): Json {
  return applyJsonPatch({ document, patch: [...ops] }).result as Json
}
