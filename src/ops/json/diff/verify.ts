import { keepShape } from '../../../lib/kept-shapes.ts'
import { isRawNumber } from '../number.ts'
import { arrayIndex, parsePointer, type Tokens } from '../pointer.ts'
import { jsonEqual } from '../value.ts'
import { ChunkedList } from './sequence.ts'
import type { Json, JsonObject, JsonPatchOp } from './values.ts'

type Container = Json[] | JsonObject

// Applies the operations the differ emits (add, remove, replace, move) with the semantics of
// /v1/json/patch (src/ops/json/patch/patch.ts), built for a large patch on a large document: only the containers on
// the paths the patch touches are copied (`left` itself is never changed), and while the patch runs
// each copied array keeps its items in a ChunkedList, so k operations on an n-item array cost
// O(n + k·√n) where splice() would cost O(n·k).
class Patching {
  root: Json
  // copied arrays (empty until finish()) with their items; copied objects (null prototype)
  readonly #lists = new Map<Json[], ChunkedList<Json>>()
  readonly #objects = new Set<object>()

  constructor(left: Json) {
    this.root = left
  }

  #own(value: Json): Json {
    if (typeof value !== 'object' || value === null || isRawNumber(value)) return value
    if (Array.isArray(value)) {
      if (this.#lists.has(value)) return value
      const copy: Json[] = []
      this.#lists.set(copy, new ChunkedList(value))
      return copy
    }
    if (this.#objects.has(value)) return value
    const copy = Object.assign(Object.create(null) as JsonObject, value)
    this.#objects.add(copy)
    return copy
  }

  // undefined when absent: JSON has no undefined values
  #read(container: Container, token: string): Json | undefined {
    if (!Array.isArray(container)) return Object.hasOwn(container, token) ? container[token] : undefined
    const list = this.#lists.get(container)!
    const index = arrayIndex(token, list.length, false)
    return index >= 0 && index < list.length ? list.get(index) : undefined
  }

  // The container that holds the last token, copied along the way; undefined when there is none.
  #parent(tokens: Tokens): Container | undefined {
    this.root = this.#own(this.root)
    let node = this.root
    for (let k = 0; k < tokens.length - 1; k++) {
      if (typeof node !== 'object' || node === null || isRawNumber(node)) return undefined
      const child = this.#read(node, tokens[k]!)
      if (child === undefined) return undefined
      const mine = this.#own(child)
      if (mine !== child) this.#replace(node, tokens[k]!, mine)
      node = mine
    }
    return typeof node === 'object' && node !== null && !isRawNumber(node) ? node : undefined
  }

  #replace(container: Container, token: string, value: Json): boolean {
    if (!Array.isArray(container)) {
      if (!Object.hasOwn(container, token)) return false
      container[token] = value
      return true
    }
    const list = this.#lists.get(container)!
    const index = arrayIndex(token, list.length, false)
    if (index < 0 || index >= list.length) return false
    list.set(index, value)
    return true
  }

  add(tokens: Tokens, value: Json): boolean {
    if (tokens.length === 0) {
      this.root = value
      return true
    }
    const parent = this.#parent(tokens)
    const last = tokens[tokens.length - 1]!
    if (parent === undefined) return false
    if (!Array.isArray(parent)) {
      parent[last] = value
      return true
    }
    const list = this.#lists.get(parent)!
    const index = arrayIndex(last, list.length, true)
    if (index < 0 || index > list.length) return false
    list.insert(index, value)
    return true
  }

  remove(tokens: Tokens): Json | undefined {
    if (tokens.length === 0) return undefined // the whole document cannot be removed
    const parent = this.#parent(tokens)
    const last = tokens[tokens.length - 1]!
    if (parent === undefined) return undefined
    if (!Array.isArray(parent)) {
      const value = this.#read(parent, last)
      delete parent[last]
      return value
    }
    const list = this.#lists.get(parent)!
    const index = arrayIndex(last, list.length, false)
    return index >= 0 && index < list.length ? list.remove(index) : undefined
  }

  replace(tokens: Tokens, value: Json): boolean {
    if (tokens.length === 0) {
      this.root = value
      return true
    }
    const parent = this.#parent(tokens)
    return parent !== undefined && this.#replace(parent, tokens[tokens.length - 1]!, value)
  }

  move(from: Tokens, to: Tokens): boolean {
    if (from.length <= to.length && from.every((token, i) => token === to[i])) {
      if (from.length < to.length) return false // into its own child
      if (from.length === 0) return true
      // onto itself: nothing to do, provided it exists
      const parent = this.#parent(from)
      return parent !== undefined && this.#read(parent, from[from.length - 1]!) !== undefined
    }
    const value = this.remove(from)
    return value !== undefined && this.add(to, value)
  }

  finish(): Json {
    for (const [array, list] of this.#lists) list.writeTo(array)
    return this.root
  }
}
keepShape(new Patching({}))

function apply(patching: Patching, op: JsonPatchOp): boolean {
  const path = parsePointer(op.path)
  if (!Array.isArray(path)) return false
  switch (op.op) {
    case 'add':
      return patching.add(path, op.value)
    case 'remove':
      return patching.remove(path) !== undefined
    case 'replace':
      return patching.replace(path, op.value)
    case 'move': {
      const from = parsePointer(op.from)
      return Array.isArray(from) && patching.move(from, path)
    }
  }
}

// The result of applying `ops` to `left`, or undefined when an operation fails.
export function patchResult(left: Json, ops: readonly JsonPatchOp[]): Json | undefined {
  const patching = new Patching(left)
  for (const op of ops) if (!apply(patching, op)) return undefined
  return patching.finish()
}

// Whether applying `ops` to `left` succeeds and gives `right`.
export function patchGives(left: Json, ops: readonly JsonPatchOp[], right: Json): boolean {
  const result = patchResult(left, ops)
  return result !== undefined && jsonEqual(result, right)
}
