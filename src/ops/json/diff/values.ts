import { isRawNumber, type RawNumber } from '../number.ts'

// JSON values as parseJsonExact produces them (numbers that no double holds as written are RawNumbers,
// see src/ops/json/number.ts), and the few helpers every json-diff module needs to treat keys such as
// "__proto__" and "constructor" as ordinary data.
export type Json = null | boolean | number | RawNumber | string | Json[] | JsonObject
export interface JsonObject {
  [key: string]: Json
}

// The RFC 6902 operations the differ emits.
export type JsonPatchOp =
  | { op: 'add'; path: string; value: Json }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: Json }
  | { op: 'move'; from: string; path: string }

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isRawNumber(value)
}

// Assignment to "__proto__" would replace the prototype instead of creating a property.
export function setOwn(target: JsonObject, key: string, value: Json): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  } else {
    target[key] = value
  }
}

// Reading an absent "constructor" or "__proto__" would return Object.prototype members.
export function getOwn(target: JsonObject, key: string): Json | undefined {
  return Object.hasOwn(target, key) ? target[key] : undefined
}

// RFC 6901 reference token escaping.
export function pointerToken(key: string | number): string {
  return String(key).replaceAll('~', '~0').replaceAll('/', '~1')
}
