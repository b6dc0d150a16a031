import { okEnvelope, okEnvelopeValueBytes } from '../lib/envelope.ts'
import { parseAndValidate } from '../lib/raw-json.ts'
import type { AnyOp } from './define.ts'
import { parseJsonExact } from './json/number.ts'

// What every path that runs an op shares (inline on the event loop, on a pool thread, in a job): the body's
// parse, the input the route completes, and the answer made of the result.

// A JSON body for this op, as text: exactly (numbers as written) where the op keeps them, else plainly.
export function parseOpBody(op: AnyOp | undefined, text: string): unknown {
  return op?.exactNumbers === true ? parseJsonExact(text, op.parsedShapes === true) : JSON.parse(text)
}

// A body left as bytes (src/lib/raw-json.ts), parsed and validated against the op's schema as the gateway
// would have done.
export function parseOpBytes(op: AnyOp, raw: Uint8Array | Uint8Array[]): Record<string, unknown> {
  const shapes = op.parsedShapes === true
  const parse = op.exactNumbers === true ? (text: string) => parseJsonExact(text, shapes) : JSON.parse
  return parseAndValidate(raw, op.body, parse) as Record<string, unknown>
}

// The op's input: the body with what the route adds (its path's fields, a raw-bytes answer's request).
export function withAdded(body: unknown, added: Record<string, unknown> | undefined): unknown {
  return added === undefined ? body : { ...(body as object), ...added }
}

// What the route adds for this request: the path's and query's fields, and those a raw-bytes answer asks for.
export function addedFields(
  op: AnyOp,
  params: unknown,
  query: unknown,
  octets: boolean,
): Record<string, unknown> | undefined {
  const fromPath = op.with?.(params, query)
  const forBytes = octets ? op.octets?.with : undefined
  if (forBytes === undefined) return fromPath
  return fromPath === undefined ? forBytes : { ...fromPath, ...forBytes }
}

// The answer made where the op ran, as bytes to send as they are: the op's raw bytes, or the JSON success
// envelope (its data's JSON text from the op itself where it is quicker: OpDescriptor.jsonBytes).
export function answerBytes(op: AnyOp, value: unknown, octets: boolean): Uint8Array {
  if (!octets) return okEnvelopeValueBytes(value, op.jsonBytes)
  if (!op.octets) throw new Error(`${op.name} has no raw-bytes answer`)
  return op.octets.bytes(value as never)
}

// The same answer as text, for a small result made on the event loop (no encoding: the reply does it).
export function answerText(value: unknown): string {
  return okEnvelope(JSON.stringify(value))
}
