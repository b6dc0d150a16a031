import { ownBytes } from '../../lib/own-bytes.ts'
import { defineOp } from '../define.ts'
import { HELD_ANSWER_LIMIT } from '../stream-step.ts'
import { convertData, defaultBounds } from './convert.ts'
import { heavyConvert, WORST_US_PER_KIB } from './cost.ts'
import { convertBody, convertQuery, convertResult } from './schema.ts'
import { convertStep, MAX_INPUT_CAP, streamOptions } from './stream.ts'
import { tinyCsvFields, tinyFlowItems } from './worst.ts'

const MiB = 1024 * 1024

export default defineOp({
  name: 'data.convert',
  family: 'data',
  http: {
    path: '/v1/data/convert',
    query: convertQuery,
    operationId: 'convertData',
    summary: 'Convert between JSON, YAML, TOML and CSV, losslessly',
    description:
      'Any of JSON (RFC 8259), YAML 1.2 (core schema), TOML 1.0.0 and CSV (RFC 4180) to any other. Exact or ' +
      'refused: big integers and exact decimals (12345678901234567890, 1.0, 0.10000000000000001) survive every ' +
      'conversion whose target can hold them, and key order is kept; what the target cannot hold is ' +
      'ERR_UNREPRESENTABLE {path, reason, to} (a 20-digit integer into TOML, NaN into JSON, null into TOML), a ' +
      'key twice is ERR_DUPLICATE_KEY {path, key}, invalid input ERR_INVALID_JSON/YAML/TOML/CSV {line, column, ' +
      'offset, reason}. TOML dates become RFC 3339 strings elsewhere. YAML output reads the same in YAML 1.1 ' +
      'readers (strings such as "no" are quoted). Nesting past 512 levels is ERR_COMPUTE_LIMIT {reason: ' +
      '"depth"}; output past 16x the input (1 MiB at least) {reason: "output_size"}, YAML aliases weighed ' +
      'before they are expanded. Also takes the document as a raw application/octet-stream body (UTF-8; ' +
      "?from=&to= and the options in the query string; at most the plan's data_max_input_bytes, else " +
      'ERR_PAYLOAD_TOO_LARGE) and answers the raw output for Accept: application/octet-stream.',
    errors: [
      'ERR_INVALID_JSON',
      'ERR_INVALID_YAML',
      'ERR_INVALID_TOML',
      'ERR_INVALID_CSV',
      'ERR_INVALID_ENCODING',
      'ERR_DUPLICATE_KEY',
      'ERR_UNREPRESENTABLE',
      'ERR_COMPUTE_LIMIT',
    ],
  },
  body: convertBody,
  response: convertResult,
  run: (input) => convertData(input, defaultBounds(Buffer.byteLength(input.input))),
  cost: {
    worst: 'CSV of one-character fields, as JSON (YAML either side past 256 characters is heavy)',
    usPerKiB: WORST_US_PER_KIB,
    // output many times the input (aliases, deep nesting): the pool, whatever the size
    heavy: (input, inlineBytes) => input.input.length >= inlineBytes || heavyConvert(input),
  },
  // inline, the worst that may run there; at a plan's limit (the stall bench), the YAML parser's worst
  worst: (bytes) => (bytes <= 4096 ? tinyCsvFields(bytes) : tinyFlowItems(bytes)),
  caps: {
    [MAX_INPUT_CAP]: {
      free: 1 * MiB,
      pro: 32 * MiB,
      business: 64 * MiB,
      describe:
        'data/convert: the largest raw body it converts (it holds the whole document; a JSON body is bounded by max_json_bytes)',
    },
  },
  warm: [
    { input: 'a: [1, 2.50, "x"]\nb: {c: true}\n', from: 'yaml', to: 'json' },
    { input: '{"a":[1,2.50,"x"],"b":{"c":true}}', from: 'json', to: 'toml' },
  ],
  octets: { bytes: (result) => ownBytes(Buffer.from(result.output, 'utf8')) },
  stream: {
    options: ({ query }) => streamOptions(query),
    step: convertStep,
    jsonBodyLimit: HELD_ANSWER_LIMIT,
  },
  examples: [
    {
      summary: 'YAML to JSON: big integers, exact decimals and key order survive',
      body: {
        input: 'name: anvil\nid: 12345678901234567890\nratio: 1.0\nports: [80, 443]\n',
        from: 'yaml',
        to: 'json',
      },
      data: {
        output:
          '{\n  "name": "anvil",\n  "id": 12345678901234567890,\n  "ratio": 1.0,\n  "ports": [\n    80,\n    443\n  ]\n}',
        bytes: 101,
      },
    },
    {
      summary: 'JSON to YAML: strings a YAML 1.1 reader would take for booleans or dates are quoted',
      body: { input: '{"country":"no","since":"2001-12-14","tags":["on","off"]}', from: 'json', to: 'yaml' },
      data: { output: 'country: "no"\nsince: "2001-12-14"\ntags:\n  - "on"\n  - "off"\n', bytes: 59 },
    },
    {
      summary: 'A CSV file as raw bytes to JSON, with types inferred (options in the query string)',
      query: { from: 'csv', to: 'json', types: 'infer', indent: '0' },
      headers: { accept: 'application/octet-stream' },
      raw: 'id,name,price\r\n1,widget,9.90\r\n2,"gadget, large",12\r\n',
      bytes: '[{"id":1,"name":"widget","price":9.90},{"id":2,"name":"gadget, large","price":12}]',
    },
    {
      summary: 'A value the target cannot hold is refused with where and why',
      body: { input: '{"build":{"id":12345678901234567890}}', from: 'json', to: 'toml' },
      error: {
        type: 'invalid_request',
        message:
          'TOML cannot hold the integer 12345678901234567890 (TOML integers are 64-bit) (at "/build/id").',
        code: 'ERR_UNREPRESENTABLE',
        details: { path: '/build/id', reason: 'integer_range', to: 'toml' },
      },
    },
  ],
})
