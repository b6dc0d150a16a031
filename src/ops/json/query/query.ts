import { AppError } from '../../../errors.ts'
import { approxBytes, containerAtLevel } from '../value.ts'
import { Evaluator } from './evaluate.ts'
import { normalizedPath } from './normalized.ts'
import { parseQuery } from './parse.ts'
import { MAX_DOCUMENT_DEPTH, type QueryBounds } from './types.ts'

// POST /v1/json/query: an RFC 9535 JSONPath query over a document, parsed losslessly (numbers exact).

export interface QueryInput {
  document: unknown
  path: string
}

export interface QueryResult {
  values: unknown[]
  // RFC 9535 Normalized Paths, one per value, in the same order
  paths: string[]
}

export function queryJson(input: QueryInput, bounds: QueryBounds): QueryResult {
  const query = parseQuery(input.path)
  // the answer is written by JSON.stringify, which recurses: deep documents are refused as json/diff's are
  if (containerAtLevel(input.document, MAX_DOCUMENT_DEPTH)) {
    throw new AppError('ERR_VALIDATION', `\`document\` is nested deeper than ${MAX_DOCUMENT_DEPTH} levels.`, {
      issues: [
        { path: 'document', message: `nesting deeper than ${MAX_DOCUMENT_DEPTH} levels is not supported` },
      ],
    })
  }
  const nodes = new Evaluator(input.document, bounds.maxSteps).run(query)
  if (nodes.length > bounds.maxResults) {
    throw new AppError(
      'ERR_RESULT_TOO_LARGE',
      `The query selects ${nodes.length} nodes; the plan allows ${bounds.maxResults}.`,
      {
        reason: 'results',
        results: nodes.length,
        max_results: bounds.maxResults,
      },
    )
  }
  let bytes = 0
  for (const node of nodes) {
    bytes += approxBytes(node.value)
    if (bytes > bounds.maxBytes) {
      throw new AppError(
        'ERR_RESULT_TOO_LARGE',
        `The values the query selects exceed the plan's ${bounds.maxBytes} bytes.`,
        {
          reason: 'bytes',
          max_bytes: bounds.maxBytes,
        },
      )
    }
  }
  return { values: nodes.map((n) => n.value), paths: nodes.map((n) => normalizedPath(n.path)) }
}
