import { AppError } from '../../../errors.ts'
import type { OpContext } from '../../progress.ts'
import { isRawNumber } from '../number.ts'
import { arrayIndex, formatPointer, type Tokens, walk } from '../pointer.ts'
import { approxBytes, cloneJson, depthOf, type JsonObject, jsonEqual } from '../value.ts'
import { invalidPatch, type Operation, readOperation } from './ops.ts'

// Deeper documents cannot be serialized back (JSON.stringify and structured clone recurse), so they
// are refused up front rather than failing on the way out.
export const MAX_PATCH_DEPTH = 1000
// Copy budget: "copy" can double a document per operation (an 822 B patch asked for 0.6 s of copying, a
// 29 KB one for a 29 MB result). The values copied may add up to at most COPY_FACTOR times the request's
// size (document and patch values, approximately as serialized, each value at least 8 bytes: see
// scalarBytes in value.ts), or COPY_FLOOR for small requests. It counts bytes, not values (one long
// string copied a thousand times is a thousand times its length) and is enforced while copying. The result is then at most the input plus the budget: no other operation
// adds bytes the request did not carry.
export const COPY_FACTOR = 16
export const COPY_FLOOR = 64 * 1024

export function copyBudget(inputBytes: number): number {
  return Math.max(COPY_FLOOR, COPY_FACTOR * inputBytes)
}

export interface JsonPatchInput {
  document: unknown
  patch: unknown[]
}

export interface JsonPatchResult {
  result: unknown
}

interface State {
  root: unknown
  // bytes copies may still add, and the whole budget
  budget: number
  limit: number
}

function typeName(value: unknown): string {
  if (isRawNumber(value)) return 'a number'
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`
}

function missing(op: Operation, tokens: Tokens, at: number): AppError {
  return invalidPatch(op.index, `${formatPointer(tokens.slice(0, at + 1))} does not exist`, op)
}

function checkDepth(op: Operation, tokens: Tokens, valueDepth: number): void {
  if (tokens.length + valueDepth > MAX_PATCH_DEPTH) {
    throw invalidPatch(op.index, `the result would nest deeper than ${MAX_PATCH_DEPTH} levels`, op)
  }
}

// The container holding the last token of `tokens`, which must exist.
function parentOf(state: State, op: Operation, tokens: Tokens): unknown[] | JsonObject {
  const { value, missingAt } = walk(state.root, tokens, tokens.length - 1)
  if (missingAt >= 0) throw missing(op, tokens, missingAt)
  if (typeof value !== 'object' || value === null || isRawNumber(value)) {
    throw invalidPatch(
      op.index,
      `${formatPointer(tokens.slice(0, -1)) || 'the document'} is ${typeName(value)}`,
      op,
    )
  }
  return value as unknown[] | JsonObject
}

function existingIndex(op: Operation, tokens: Tokens, array: unknown[]): number {
  const index = arrayIndex(tokens[tokens.length - 1]!, array.length, false)
  if (index < 0 || index >= array.length) throw missing(op, tokens, tokens.length - 1)
  return index
}

function insert(state: State, op: Operation, tokens: Tokens, value: unknown): void {
  if (tokens.length === 0) {
    state.root = value
    return
  }
  const parent = parentOf(state, op, tokens)
  const last = tokens[tokens.length - 1]!
  if (!Array.isArray(parent)) {
    parent[last] = value
    return
  }
  const index = arrayIndex(last, parent.length, true)
  if (index < 0)
    throw invalidPatch(op.index, `"${last}" is not an array index (digits, no leading zeros, or "-")`, op)
  if (index > parent.length) {
    throw invalidPatch(op.index, `index ${index} is past the end of the array (length ${parent.length})`, op)
  }
  parent.splice(index, 0, value)
}

function detach(state: State, op: Operation, tokens: Tokens): unknown {
  if (tokens.length === 0) throw invalidPatch(op.index, 'the whole document cannot be removed', op)
  const parent = parentOf(state, op, tokens)
  if (Array.isArray(parent)) return parent.splice(existingIndex(op, tokens, parent), 1)[0]
  const last = tokens[tokens.length - 1]!
  if (!Object.hasOwn(parent, last)) throw missing(op, tokens, tokens.length - 1)
  const value = parent[last]
  delete parent[last]
  return value
}

function replace(state: State, op: Operation, value: unknown): void {
  const { tokens } = op
  if (tokens.length === 0) {
    state.root = value
    return
  }
  const parent = parentOf(state, op, tokens)
  if (Array.isArray(parent)) {
    parent[existingIndex(op, tokens, parent)] = value
    return
  }
  const last = tokens[tokens.length - 1]!
  if (!Object.hasOwn(parent, last)) throw missing(op, tokens, tokens.length - 1)
  parent[last] = value
}

function fresh(op: Operation, value: unknown): unknown {
  const cloned = cloneJson(value)
  checkDepth(op, op.tokens, cloned.depth)
  return cloned.value
}

function isPrefix(prefix: Tokens, tokens: Tokens): boolean {
  return prefix.length <= tokens.length && prefix.every((t, i) => t === tokens[i])
}

function apply(state: State, op: Operation): void {
  switch (op.op) {
    case 'add':
      insert(state, op, op.tokens, fresh(op, op.value))
      return
    case 'remove':
      detach(state, op, op.tokens)
      return
    case 'replace':
      replace(state, op, fresh(op, op.value))
      return
    case 'move': {
      const from = op.fromTokens!
      const source = walk(state.root, from, from.length)
      if (source.missingAt >= 0) throw missing(op, from, source.missingAt)
      if (isPrefix(from, op.tokens)) {
        // moving a value onto itself changes nothing; into one of its own children is impossible
        if (from.length === op.tokens.length) return
        throw invalidPatch(op.index, 'a value cannot be moved into itself', op)
      }
      const value = detach(state, op, from)
      checkDepth(op, op.tokens, depthOf(value))
      insert(state, op, op.tokens, value)
      return
    }
    case 'copy': {
      const from = op.fromTokens!
      const source = walk(state.root, from, from.length)
      if (source.missingAt >= 0) throw missing(op, from, source.missingAt)
      const copy = cloneJson(source.value, state.budget)
      state.budget -= copy.bytes
      if (state.budget < 0) {
        throw new AppError(
          'ERR_COMPUTE_LIMIT',
          `Patch operation ${op.index}: the copies would add more than ${state.limit} bytes (the copy budget).`,
          { reason: 'copied_bytes', limit: state.limit, index: op.index },
        )
      }
      checkDepth(op, op.tokens, copy.depth)
      insert(state, op, op.tokens, copy.value)
      return
    }
    case 'test': {
      const target = walk(state.root, op.tokens, op.tokens.length)
      if (target.missingAt < 0 && jsonEqual(target.value, op.value)) return
      const reason = target.missingAt < 0 ? 'the value differs' : 'nothing exists at that path'
      throw new AppError(
        'ERR_PATCH_TEST_FAILED',
        `Patch operation ${op.index} (test "${op.path}"): ${reason}.`,
        {
          index: op.index,
          path: op.path,
          reason,
        },
      )
    }
  }
}

// RFC 6902 on a private deep copy: the caller's document is never mutated, and a failing operation
// simply discards the copy, so a patch applies entirely or not at all.
// With a progress callback (a job), each operation applied reports the fraction of operations done.
export function applyJsonPatch(params: JsonPatchInput, context?: OpContext): JsonPatchResult {
  const operations = params.patch.map(readOperation)
  const document = cloneJson(params.document)
  if (document.depth > MAX_PATCH_DEPTH) {
    throw new AppError('ERR_VALIDATION', `The document nests deeper than ${MAX_PATCH_DEPTH} levels.`, {
      issues: [{ path: 'document', message: `nests deeper than ${MAX_PATCH_DEPTH} levels` }],
    })
  }
  let inputBytes = document.bytes
  for (const op of operations) if (op.value !== undefined) inputBytes += approxBytes(op.value)
  const limit = copyBudget(inputBytes)
  const state: State = { root: document.value, budget: limit, limit }
  const progress = context?.progress
  for (let i = 0; i < operations.length; i++) {
    if (progress && i > 0) progress(i / operations.length)
    apply(state, operations[i]!)
  }
  return { result: state.root }
}
