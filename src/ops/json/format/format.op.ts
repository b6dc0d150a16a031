import { ownBytes } from '../../../lib/own-bytes.ts'
import { defineOp } from '../../define.ts'
import { HELD_ANSWER_LIMIT } from '../../stream-step.ts'
import { fill, nestedArrays } from '../../worst-case.ts'
import { WARM_DOC } from '../warm-documents.ts'
import { prettyOutputBound } from './cost.ts'
import { formatResultJson, outputBytes } from './envelope.ts'
import { formatJson } from './format.ts'
import { formatBody, formatQuery, formatResult } from './schema.ts'
import { formatStep } from './stream.ts'

// Inline json/format requests write at most this much pretty output (writing and serializing it takes about
// 1 ms), and sort_keys (which holds and sorts every object) runs inline only for inputs this small
// (measured: bench/cost-models.ts).
const INLINE_OUTPUT_BYTES = 64 * 1024
const INLINE_SORT_BYTES = 8 * 1024

const DOC = JSON.stringify(WARM_DOC)

export default defineOp({
  name: 'json.format',
  family: 'json',
  http: {
    path: '/v1/json/format',
    query: formatQuery,
    operationId: 'formatJson',
    summary: 'Pretty-print or minify JSON, losslessly',
    description:
      'The text is validated strictly (RFC 8259) and re-emitted token by token: numbers such as ' +
      '12345678901234567890, 1.0, -0 or 1e400 and string escapes come out exactly as written. Invalid JSON ' +
      'is refused with ERR_INVALID_JSON and details {line, column, offset, reason}. Also takes the JSON text ' +
      'as a raw application/octet-stream body (UTF-8; options from the query string; errors add byte_offset), ' +
      'formatted as it arrives, and answers the raw output bytes for Accept: application/octet-stream ' +
      "(warnings are then not sent): raw in and raw out streams at constant memory up to the plan's binary " +
      'limit, while a raw body answered as JSON may be at most 100 MiB. A streamed answer commits its 200 after ' +
      'the first MiB of output: an error found later (invalid JSON deep in a large body) breaks the answer off ' +
      '(connection reset on HTTP/1.1, RST_STREAM on HTTP/2) instead of ending it normally. With sort_keys, each ' +
      'outermost object is held in memory until it closes (one needing more than 256 MiB is refused with ' +
      'ERR_COMPUTE_LIMIT {limit: "sorted_object"}). Output larger than 64 MiB and 4x the input (256 MiB at most ' +
      'when answered as JSON) is refused with ERR_COMPUTE_LIMIT {limit: "output_size", max_bytes}, as is ' +
      'nesting deeper than 16,777,216 levels {limit: "depth"}.',
    errors: ['ERR_INVALID_JSON', 'ERR_COMPUTE_LIMIT'],
  },
  body: formatBody,
  response: formatResult,
  run: formatJson,
  cost: {
    worst: 'pretty at indent 8 up to the 64 KiB inline output estimate (more: heavy)',
    usPerKiB: 30,
    // sort_keys of more than a few KiB, or a pretty output that may pass INLINE_OUTPUT_BYTES (the op's own
    // estimate, one pass that stops counting there); none for inputs that go to the pool by size anyway
    heavy: (input, inlineBytes) => {
      const text = input.input
      if (typeof text !== 'string' || text.length >= inlineBytes) return true
      if (input.sort_keys === true && text.length > INLINE_SORT_BYTES) return true
      if (input.mode === 'minify') return false
      return prettyOutputBound(text, input.indent ?? 2, INLINE_OUTPUT_BYTES) > INLINE_OUTPUT_BYTES
    },
  },
  // inline: as much pretty output as the inline estimate lets through (nesting at indent 8, then one value a
  // line); on the pool the output budget stops it (16x the input, 1 MiB at least)
  worst: (bytes) => {
    if (bytes <= 64 * 1024) {
      const text = `"${fill('x', Math.max(1, bytes - 4 * 1024 - 200))}"`
      return { input: `[${nestedArrays(40)},${fill('0,', Math.min(bytes, 3584))}${text}]`, indent: 8 }
    }
    return { input: `[${fill(`${nestedArrays(400)},`, bytes - 20)}0]`, indent: 8 }
  },
  warm: [
    { input: DOC, indent: 2, sort_keys: true },
    { input: DOC, mode: 'minify' },
  ],
  octets: { bytes: (result) => ownBytes(outputBytes(result)) },
  jsonBytes: formatResultJson,
  stream: {
    options: ({ query, declaredBytes }) => ({ ...query, expected_bytes: declaredBytes }),
    step: formatStep,
    jsonBodyLimit: HELD_ANSWER_LIMIT,
  },
  job: { progress: 'bytes formatted' },
  examples: [
    {
      summary:
        'Pretty-print with sorted keys: numbers and escapes come out exactly as written, duplicate keys are ' +
        'kept and reported',
      body: { input: '{"b": 12345678901234567890, "a": [1.0, -0, 1e400], "b": "\\u00e9"}', sort_keys: true },
      data: {
        output:
          '{\n  "a": [\n    1.0,\n    -0,\n    1e400\n  ],\n  "b": 12345678901234567890,\n  "b": "\\u00e9"\n}',
        bytes: 89,
        warnings: [
          {
            code: 'duplicate_key',
            message: 'Duplicate key "b" (kept).',
            key: 'b',
            line: 1,
            column: 52,
            offset: 51,
          },
        ],
      },
    },
    {
      summary: 'Minify a file as raw bytes and get raw bytes back (options in the query string)',
      query: { mode: 'minify' },
      headers: { accept: 'application/octet-stream' },
      raw: '{\n  "a": [1, 2.50]\n}\n',
      bytes: '{"a":[1,2.50]}',
    },
    {
      summary: 'A strict refusal that points at the culprit',
      body: { input: '{"a": [1, 2,]}', mode: 'minify' },
      error: {
        type: 'invalid_request',
        message: 'Invalid JSON at line 1, column 13: Trailing comma before ].',
        code: 'ERR_INVALID_JSON',
        details: { line: 1, column: 13, offset: 12, reason: 'Trailing comma before ]' },
      },
    },
  ],
})
