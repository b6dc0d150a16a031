import { z } from 'zod'
import { MAX_PATH_LENGTH } from './types.ts'

// The request and response of /v1/json/query. The document is parsed losslessly (numbers keep their text).

export const queryBody = z.strictObject({
  document: z.unknown().describe('The JSON document to query: any JSON value'),
  path: z
    .string()
    .min(1)
    .max(MAX_PATH_LENGTH)
    .describe(
      'An RFC 9535 JSONPath query, e.g. `$.store.book[?@.price < 10].title`, with the functions length, ' +
        'count, match, search and value (I-Regexp patterns, RFC 9485)',
    ),
})

export const queryResult = z.object({
  values: z
    .array(z.unknown().describe('A selected value'))
    .describe('The selected values, in document order'),
  paths: z
    .array(z.string().describe("A Normalized Path, e.g. $['store']['book'][0]"))
    .describe('The RFC 9535 Normalized Path of each value, in the same order'),
})
