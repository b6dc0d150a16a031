// data/convert's plain types and constant lists, for the op and its route alike.

import type { DataFormat } from './model/formats.ts'

export { DATA_FORMATS, type DataFormat } from './model/formats.ts'

export const YAML_DOCUMENTS = ['single', 'stream'] as const
export const CSV_TYPES = ['strings', 'infer'] as const
export const CSV_NESTED = ['refuse', 'flatten'] as const

// Options, each for the formats named in its comment; one given for a conversion that involves none of
// them is refused (convert.ts).
export interface ConvertOptions {
  // JSON and YAML output: spaces per level (JSON: 0 is one line; "\t" tabs), YAML 1–8
  indent?: number | '\t'
  // YAML input and output: one document, or a stream read as (written from) an array of documents
  documents?: (typeof YAML_DOCUMENTS)[number]
  // CSV input and output
  delimiter?: string
  quote?: string
  header?: boolean
  // CSV input: fields stay strings, or unquoted ones that are JSON numbers, true, false or empty are typed
  types?: (typeof CSV_TYPES)[number]
  // CSV output: a nested value in a row is refused, or flattened into dotted column names
  nested?: (typeof CSV_NESTED)[number]
}

export interface ConvertInput {
  input: string
  from: DataFormat
  to: DataFormat
  options?: ConvertOptions
}

export interface ConvertResult {
  output: string
  // the output's length in UTF-8 bytes
  bytes: number
}

// What a conversion may cost, from the caller (the plan): plain arguments, so tests can set them.
export interface ConvertBounds {
  // containers nested deeper than this are refused (ERR_COMPUTE_LIMIT, reason "depth")
  maxDepth: number
  // an output past this many bytes is refused (ERR_COMPUTE_LIMIT, reason "output_size"); aliases are
  // weighed against it before they are expanded
  maxOutputBytes: number
}
