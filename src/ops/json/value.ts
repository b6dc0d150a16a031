import { isJsonNumber, isRawNumber, numbersEqual } from './number.ts'

// Iterative helpers over parsed JSON values (explicit stacks: depth never reaches the call stack).
// Numbers kept exactly (JSON.rawJSON objects, see number.ts) are values, never containers.

export type JsonObject = Record<string, unknown>

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isRawNumber(value)
}

// Containers: arrays and objects, not raw numbers.
function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !isRawNumber(value)
}

function emptyLike(value: object): unknown[] | JsonObject {
  // null prototype: assigning "__proto__" or "constructor" makes a plain own property, never a setter call
  return Array.isArray(value) ? [] : (Object.create(null) as JsonObject)
}

export interface Cloned {
  value: unknown
  // containers on the deepest path: 0 for a scalar, 1 for [] or {}
  depth: number
  // values, containers included
  nodes: number
}

// A deep copy made of fresh arrays and null-prototype objects, so the patch can mutate it freely and
// never touches the caller's data.
export function cloneJson(root: unknown): Cloned {
  if (!isContainer(root)) return { value: root, depth: 0, nodes: 1 }
  const copy = emptyLike(root)
  const stack: unknown[] = [root, copy, 1]
  let nodes = 1
  let depth = 1
  while (stack.length > 0) {
    const level = stack.pop() as number
    const target = stack.pop() as unknown[] | JsonObject
    const source = stack.pop() as unknown[] | JsonObject
    if (level > depth) depth = level
    if (Array.isArray(source)) {
      const out = target as unknown[]
      for (const item of source) {
        nodes++
        if (isContainer(item)) {
          const child = emptyLike(item)
          out.push(child)
          stack.push(item, child, level + 1)
        } else {
          out.push(item)
        }
      }
    } else {
      const out = target as JsonObject
      for (const key of Object.keys(source)) {
        nodes++
        const item = source[key]
        if (isContainer(item)) {
          const child = emptyLike(item)
          out[key] = child
          stack.push(item, child, level + 1)
        } else {
          out[key] = item
        }
      }
    }
  }
  return { value: copy, depth, nodes }
}

export function depthOf(root: unknown): number {
  let depth = 0
  const stack: unknown[] = [root, 1]
  while (stack.length > 0) {
    const level = stack.pop() as number
    const value = stack.pop()
    if (!isContainer(value)) continue
    if (level > depth) depth = level
    for (const item of Array.isArray(value) ? value : Object.values(value)) {
      if (isContainer(item)) stack.push(item, level + 1)
    }
  }
  return depth
}

// Structural JSON equality: key order is irrelevant, numbers compare by exact decimal value (1 and 1.0
// are equal, 12345678901234567890 and 12345678901234567891 are not: see number.ts).
export function jsonEqual(a: unknown, b: unknown): boolean {
  const stack: unknown[] = [a, b]
  while (stack.length > 0) {
    const y = stack.pop()
    const x = stack.pop()
    if (x === y) continue
    if (isJsonNumber(x) || isJsonNumber(y)) {
      if (isJsonNumber(x) && isJsonNumber(y) && numbersEqual(x, y)) continue
      return false
    }
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false
      for (let i = 0; i < x.length; i++) stack.push(x[i], y[i])
    } else {
      if (Array.isArray(y)) return false
      const keys = Object.keys(x)
      if (keys.length !== Object.keys(y).length) return false
      for (const key of keys) {
        if (!Object.hasOwn(y, key)) return false
        stack.push((x as JsonObject)[key], (y as JsonObject)[key])
      }
    }
  }
  return true
}
