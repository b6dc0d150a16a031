// json/validate's plain types and constant lists (a route may read this file).

export const DIALECTS = ['2020-12', '2019-09', 'draft-07', 'draft-06', 'draft-04'] as const
export type Dialect = (typeof DIALECTS)[number]

// The meta-schema URI each dialect is chosen by (`$schema`), as written and with an empty fragment.
export const DIALECT_URIS: Record<Dialect, string> = {
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema',
  'draft-06': 'http://json-schema.org/draft-06/schema',
  'draft-04': 'http://json-schema.org/draft-04/schema',
}

// One error of the spec's "basic" output format (JSON Schema 2020-12 core §12.4.2), in snake case.
export interface OutputUnit {
  // JSON Pointer to the failing value in the instance
  instance_location: string
  // JSON Pointer through the schema as evaluated ($ref and $dynamicRef hops included) to the keyword
  keyword_location: string
  // the keyword's absolute URI: its schema resource's URI and a JSON Pointer fragment
  absolute_keyword_location: string
  message: string
}

// What one validation may cost and keep: plain arguments (the plan's caps, in the op).
export interface ValidateBounds {
  // instances per request
  maxInstances: number
  // output units kept per request (over all its instances); the rest are counted
  maxErrors: number
  // schema nodes evaluated per request (all instances): past it, ERR_COMPUTE_LIMIT
  maxSteps: number
}

// Nesting bounds, as json/diff's (512): schemas and instances deeper than this are refused (400).
export const MAX_SCHEMA_DEPTH = 512
export const MAX_INSTANCE_DEPTH = 512
// $ref / $dynamicRef / $recursiveRef hops in a row that read nothing further into the instance: one more is
// a reference cycle (`{"$ref": "#"}`), refused instead of recursing until the stack runs out.
export const MAX_REF_CHAIN = 256
