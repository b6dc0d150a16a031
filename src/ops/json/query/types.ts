// json/query's plain types (a route may read this file).

export interface QueryBounds {
  // nodes in the answer
  maxResults: number
  // the answer's values, as JSON text
  maxBytes: number
  // nodes visited while evaluating (every selector's and filter's), past which ERR_COMPUTE_LIMIT
  maxSteps: number
}

// Queries longer than this are refused before they are parsed (ERR_VALIDATION, from the schema).
export const MAX_PATH_LENGTH = 4096

// Documents nested deeper than this are refused (ERR_VALIDATION), as json/diff refuses them.
export const MAX_DOCUMENT_DEPTH = 512
