import type { z } from 'zod'
import { AppError } from '../errors.ts'
import { jsonParseErrorOffset, locate } from './json-error.ts'
import { issuesOf, parseInput, validationMessage } from './zod-issues.ts'

// A JSON body left unparsed on purpose: it is bound for a worker thread, which parses and validates it
// there, so a large document never costs the event loop a parse and two structured clones.
export class RawJson {
  readonly bytes: Uint8Array
  constructor(bytes: Uint8Array) {
    // moved to the worker, never cloned: a Buffer that owns its ArrayBuffer is kept as is; one that is a
    // slice (of Node's shared pool, or of a larger read) is copied into a buffer of its own first
    const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    this.bytes = owned ? bytes : new Uint8Array(bytes)
  }
}

// The same checks the gateway's body parser and zod compiler make, for use off the main thread.
// `parse` is JSON.parse or one that throws as it does (parseJsonExact for ops with exact numbers).
export function parseAndValidate<T>(
  bytes: Uint8Array,
  schema: z.ZodType<T>,
  parse: (text: string) => unknown = JSON.parse,
): T {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  let data: unknown
  try {
    data = parse(text)
  } catch (err) {
    throw new AppError('ERR_INVALID_JSON', undefined, locate(text, jsonParseErrorOffset(err, text)))
  }
  const r = parseInput(schema, data)
  if (r.success) return r.data
  const issues = issuesOf(r.error)
  const message =
    data === null || typeof data !== 'object' || Array.isArray(data)
      ? 'The body must be a JSON object.'
      : validationMessage(issues)
  throw new AppError('ERR_VALIDATION', message, { issues })
}

const utf8 = new TextEncoder()

// The success envelope around an op's JSON text, as UTF-8 bytes: built on the worker for a raw body, so the
// gateway neither concatenates, measures nor encodes a large answer on its event loop (a 4 MiB url.build
// body answers 17 MB). TextEncoder gives an ArrayBuffer of its own, which can be transferred, not copied.
export function okEnvelopeBytes(json: string): Uint8Array {
  return utf8.encode(`{"ok":true,"data":${json}}`)
}
