// What CSV reading and writing share: the dialect (RFC 4180's is ',' and '"', with a header row) and the
// one rule for typing a field, so that what the writer quotes is exactly what the reader would type.

export interface CsvDialect {
  delimiter: string
  quote: string
  header: boolean
}

export const RFC_4180: CsvDialect = { delimiter: ',', quote: '"', header: true }

export const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/

// With types "infer", an unquoted field is typed when it is one of these: a JSON number, true, false,
// or empty (null). A quoted field is always a string.
export function inferable(field: string): boolean {
  return field === '' || field === 'true' || field === 'false' || JSON_NUMBER.test(field)
}
