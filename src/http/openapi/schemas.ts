import { isDeepStrictEqual } from 'node:util'
import { z } from 'zod'
import { ERROR_TYPES, ERRORS, type ErrorCode } from '../../errors.ts'

export type JsonSchema = Record<string, unknown>
type Io = 'input' | 'output'

const REF = '#/components/schemas/'
const SHARED = `${REF}__shared#/$defs/`

// a schema given an id with .meta({ id }) anywhere in the code base keeps that name in every document
function globalId(schema: z.ZodType): string | undefined {
  return z.globalRegistry.get(schema)?.id
}

// The error table's codes and types, named (one component each, wherever they appear): the error envelope's
// and a failed job's `error`.
export const errorCodeSchema = z.enum(Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]]).meta({
  id: 'ErrorCode',
  description: 'Stable error codes (the table in docs/api.md); new codes may be added',
})
export const errorTypeSchema = z.enum(ERROR_TYPES).meta({ id: 'ErrorType' })

export function pascal(operationId: string): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1)
}

// Named component schemas for a document: every request body, response and error is registered under a
// name (its .meta id, or one derived from the operation id), zod renders them with $refs to each other,
// and what no operation ends up referencing is pruned. Requests render as zod's input (defaults
// optional), responses as its output; a name whose two renderings differ gets an `Input` twin.
export class ComponentSchemas {
  readonly #names = { input: new Map<z.ZodType, string>(), output: new Map<z.ZodType, string>() }
  readonly #taken = new Set<string>()

  // registers a schema and returns the $ref that points at it
  ref(schema: z.ZodType, io: Io, name: string): { $ref: string } {
    const names = this.#names[io]
    let id = names.get(schema)
    if (!id) {
      id = globalId(schema) ?? this.#unique(name)
      names.set(schema, id)
    }
    return { $ref: REF + id }
  }

  #unique(name: string): string {
    let id = name
    for (let n = 2; this.#taken.has(id); n++) id = `${name}${n}`
    this.#taken.add(id)
    return id
  }

  // the components, and the renaming to apply to the $refs of requests (to their Input twins)
  render(): { schemas: Record<string, JsonSchema>; inputRefs: Map<string, string> } {
    const input = renderAll(this.#names.input, 'input')
    const output = renderAll(this.#names.output, 'output')
    // a name rendered differently for requests gets an Input twin, and so does any schema in both
    // that points at such a name
    const twins = new Set<string>()
    for (let changed = true; changed; ) {
      changed = false
      for (const [id, schema] of Object.entries(input)) {
        if (twins.has(id) || !(id in output)) continue
        if (!isDeepStrictEqual(schema, output[id]) || refersTo(schema, twins)) {
          twins.add(id)
          changed = true
        }
      }
    }
    const renamed = new Map([...twins].map((id) => [REF + id, `${REF}${id}Input`]))
    const out: Record<string, JsonSchema> = { ...output }
    for (const [id, schema] of Object.entries(input)) {
      const request = defaultsDescribed(rewriteRefs(schema, renamed)) as JsonSchema
      if (twins.has(id)) out[`${id}Input`] = request
      else if (!(id in output)) out[id] = request
    }
    return { schemas: out, inputRefs: renamed }
  }
}

// A request field with a default is optional to send, but generators read `default` in a component
// schema as "always present" (openapi-typescript's defaultNonNullable, on by default, makes it required):
// in request schemas the default is stated in the field's description instead.
function defaultsDescribed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(defaultsDescribed)
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = defaultsDescribed(v)
  if ('default' in out) {
    const stated = `Default: ${JSON.stringify(out.default)}.`
    out.description = typeof out.description === 'string' ? `${out.description}. ${stated}` : stated
    delete out.default
  }
  return out
}

function refersTo(value: unknown, ids: Set<string>): boolean {
  if (Array.isArray(value)) return value.some((v) => refersTo(v, ids))
  if (value === null || typeof value !== 'object') return false
  for (const [k, v] of Object.entries(value)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith(REF) && ids.has(v.slice(REF.length)))
      return true
    if (refersTo(v, ids)) return true
  }
  return false
}

function renderAll(names: Map<z.ZodType, string>, io: Io): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>()
  const seen = new Set<string>()
  for (const [schema, id] of names) {
    if (seen.has(id)) continue
    seen.add(id)
    registry.add(schema, { id })
  }
  // schemas named with .meta({ id }) anywhere are referenced by name wherever they appear
  for (const [id, schema] of (z.globalRegistry as unknown as { _idmap: Map<string, z.ZodType> })._idmap) {
    if (seen.has(id)) continue
    seen.add(id)
    registry.add(schema, { id })
  }
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    uri: (id) => REF + id,
  }) as { schemas: Record<string, JsonSchema> }
  // recursive schemas without a name land in zod's __shared $defs: they become components of their own
  const shared = (schemas.__shared?.$defs ?? {}) as Record<string, JsonSchema>
  delete schemas.__shared
  const sharedNames = new Map<string, string>()
  for (const key of Object.keys(shared)) {
    sharedNames.set(SHARED + key, `${REF}${io === 'input' ? 'Input' : ''}${pascal(key)}`)
  }
  const out: Record<string, JsonSchema> = {}
  for (const [id, schema] of Object.entries({ ...schemas, ...shared })) {
    const { $schema: _s, $id: _i, ...rest } = schema
    const name = sharedNames.get(SHARED + id)?.slice(REF.length) ?? id
    out[name] = rewriteRefs(rest, sharedNames) as JsonSchema
  }
  return out
}

export function rewriteRefs(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, names))
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === '$ref' && typeof v === 'string' ? (names.get(v) ?? v) : rewriteRefs(v, names)
  }
  return out
}

// every component reachable from the document's paths (and from the components it names), in order
export function pruneComponents(
  document: unknown,
  schemas: Record<string, JsonSchema>,
): Record<string, JsonSchema> {
  const used = new Set<string>()
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) for (const v of value) visit(v)
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith(REF)) {
          const id = v.slice(REF.length)
          if (!used.has(id) && schemas[id]) {
            used.add(id)
            visit(schemas[id])
          }
        } else visit(v)
      }
    }
  }
  visit(document)
  return Object.fromEntries(
    Object.keys(schemas)
      .filter((id) => used.has(id))
      .sort()
      .map((id) => [id, schemas[id]!]),
  )
}

// a component, resolved (for flattening a query or path schema into parameters)
export function resolve(schema: JsonSchema, schemas: Record<string, JsonSchema>): JsonSchema {
  const ref = schema.$ref
  if (typeof ref === 'string' && ref.startsWith(REF)) return schemas[ref.slice(REF.length)] ?? schema
  return schema
}
