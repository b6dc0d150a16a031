import type { z } from 'zod'
import { AppError } from '../errors.ts'
import { jsonParseErrorOffset, locate } from './json-error.ts'
import { ownBytes } from './own-bytes.ts'
import { issuesOf, parseInput, validationMessage } from './zod-issues.ts'

// A JSON body left unparsed on purpose: it is bound for a worker thread, which parses and validates it
// there, so a large document never costs the event loop a parse and two structured clones. Its bytes are
// one buffer (a body of declared size, read into one allocation) or the pieces it arrived in (a chunked
// body: joined on the thread, so the event loop never copies a large body in one go). Moved to the worker,
// never cloned: a piece that owns its ArrayBuffer is kept as is; one that is a slice (of Node's shared
// pool, or of a larger read) is copied into a buffer of its own first (own-bytes.ts).
export class RawJson {
  readonly parts: Uint8Array[]
  readonly size: number
  constructor(bytes: Uint8Array | Uint8Array[]) {
    const parts = Array.isArray(bytes) ? bytes : [bytes]
    this.parts = parts.map(ownBytes)
    this.size = parts.reduce((sum, part) => sum + part.byteLength, 0)
  }
}

// The body's bytes as one buffer (on the thread: a copy only when it came in several pieces).
export function joined(parts: Uint8Array[]): Uint8Array {
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
}

// The body as text; the bytes (and a joined copy) are this function's locals only, so nothing in the
// caller's frame keeps them once the text is made.
function textOf(body: Uint8Array | Uint8Array[]): string {
  const bytes = Array.isArray(body) ? joined(body) : body
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
}

// The same checks the gateway's body parser and zod compiler make, for use off the main thread.
// `parse` is JSON.parse or one that throws as it does (parseJsonExact for ops with exact numbers).
// Pieces given as an array are consumed: the array is emptied once the text is made, so the body's bytes
// can be collected while the text is parsed (a pool task's message holds the array until the task ends).
// A 100k-item json/diff (18.5 MiB body) then peaked ~30 MiB lower: growth over idle 8.4-8.5× the body
// → 6.8-7.3× (bench json-diff-100k, three runs each, docs/dispatch.md).
export function parseAndValidate<T>(
  body: Uint8Array | Uint8Array[],
  schema: z.ZodType<T>,
  parse: (text: string) => unknown = JSON.parse,
): T {
  const text = textOf(body)
  if (Array.isArray(body)) body.length = 0
  let data: unknown
  try {
    data = parse(text)
  } catch (err) {
    throw new AppError('ERR_INVALID_JSON', undefined, locate(text, jsonParseErrorOffset(err, text)))
  }
  const r = parseInput(schema, data)
  if (r.success) return r.data
  const issues = issuesOf(r.issues)
  const message =
    data === null || typeof data !== 'object' || Array.isArray(data)
      ? 'The body must be a JSON object.'
      : validationMessage(issues)
  throw new AppError('ERR_VALIDATION', message, { issues })
}
