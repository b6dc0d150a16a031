import { AppError } from '../../../errors.ts'
import { parsePointer, type Tokens } from '../pointer.ts'
import { isObject } from '../value.ts'

export const PATCH_OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const
export type PatchOpName = (typeof PATCH_OPS)[number]

export interface Operation {
  index: number
  op: PatchOpName
  path: string
  tokens: Tokens
  from?: string
  fromTokens?: Tokens
  value?: unknown
}

export function invalidPatch(index: number, reason: string, where: Partial<Operation> = {}): AppError {
  const details: Record<string, unknown> = { index }
  if (where.op !== undefined) details.op = where.op
  if (where.path !== undefined) details.path = where.path
  if (where.from !== undefined) details.from = where.from
  details.reason = reason
  let label = ''
  if (where.op !== undefined) {
    label = where.path === undefined ? ` (${where.op})` : ` (${where.op} ${JSON.stringify(where.path)})`
  }
  return new AppError('ERR_INVALID_PATCH', `Patch operation ${index}${label}: ${reason}.`, details)
}

function pointerField(
  raw: Record<string, unknown>,
  field: 'path' | 'from',
  index: number,
  where: Partial<Operation>,
): Tokens {
  const value = raw[field]
  if (!Object.hasOwn(raw, field)) throw invalidPatch(index, `"${field}" is required`, where)
  if (typeof value !== 'string') throw invalidPatch(index, `"${field}" must be a JSON Pointer string`, where)
  const parsed = parsePointer(value)
  if (!Array.isArray(parsed))
    throw invalidPatch(index, `"${field}": ${parsed.reason}`, { ...where, [field]: value })
  return parsed
}

// Checks one RFC 6902 operation object; members other than op/path/from/value are ignored (RFC 6902 §4).
export function readOperation(raw: unknown, index: number): Operation {
  if (!isObject(raw)) throw invalidPatch(index, 'an operation must be an object')
  const op = raw.op
  if (!Object.hasOwn(raw, 'op')) throw invalidPatch(index, '"op" is required')
  if (typeof op !== 'string' || !(PATCH_OPS as readonly string[]).includes(op)) {
    throw invalidPatch(index, `"op" must be one of ${PATCH_OPS.join(', ')}`)
  }
  const name = op as PatchOpName
  const tokens = pointerField(raw, 'path', index, { op: name })
  const operation: Operation = { index, op: name, path: raw.path as string, tokens }
  if (name === 'move' || name === 'copy') {
    operation.fromTokens = pointerField(raw, 'from', index, operation)
    operation.from = raw.from as string
  }
  if (name === 'add' || name === 'replace' || name === 'test') {
    if (!Object.hasOwn(raw, 'value')) throw invalidPatch(index, '"value" is required', operation)
    operation.value = raw.value
  }
  return operation
}
