import { defineOp } from '../../define.ts'
import { SchemaCache } from './cache.ts'
import { validateIsHeavy, validateWorst } from './cost.ts'
import { validateBody, validateResult } from './schema.ts'
import { MAX_INSTANCE_DEPTH, MAX_SCHEMA_DEPTH } from './types.ts'
import { validateJson } from './validate.ts'

// Compiled schemas kept on this pool thread (docs/decisions.md, "JSON Schema and JSONPath: our own"), per
// workspace (ctx.tenant).
const schemas = new SchemaCache({ maxEntries: 256, maxBytes: 64 * 2 ** 20, maxPerTenant: 32 })

// no `$schema` (2020-12 is the default): the examples' curl lines quote bodies where a shell reads `$`
const ORDER = {
  type: 'object',
  required: ['sku', 'qty', 'price'],
  properties: {
    sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' },
    qty: { type: 'integer', minimum: 1 },
    price: { type: 'number', multipleOf: 0.01 },
  },
}

export default defineOp({
  name: 'json.validate',
  family: 'json',
  http: {
    path: '/v1/json/validate',
    operationId: 'validateJson',
    summary: 'Validate JSON against a JSON Schema',
    description:
      'Validates `instance` (or each of `instances`, the schema compiled once) against a JSON Schema of ' +
      'dialect 2020-12, 2019-09, draft-07, draft-06 or draft-04, chosen by `$schema`. Errors are the ' +
      'specification\'s "basic" output units (instance_location, keyword_location, absolute_keyword_location, ' +
      "message), up to the plan's cap. Remote references are never fetched: a schema bundles its resources " +
      '(`$id`, `$defs`); the five meta-schemas are built in; a reference that names nothing is ' +
      'ERR_SCHEMA_REF_UNRESOLVED. `format` annotates unless `format_assertion` is true. Numbers are exact: ' +
      '12345678901234567891 is above a `maximum` of 12345678901234567890, 19.99 is a `multipleOf` 0.01. Patterns ' +
      'run in linear time; one that cannot (lookaround, backreferences) is ERR_UNSUPPORTED_REGEX. Schemas ' +
      `nested deeper than ${MAX_SCHEMA_DEPTH} levels and instances deeper than ${MAX_INSTANCE_DEPTH} are refused.`,
    errors: ['ERR_INVALID_SCHEMA', 'ERR_SCHEMA_REF_UNRESOLVED', 'ERR_UNSUPPORTED_REGEX', 'ERR_COMPUTE_LIMIT'],
  },
  body: validateBody,
  response: validateResult,
  run: (input, ctx) =>
    validateJson(
      input,
      {
        maxInstances: ctx.caps.json_validate_instances!,
        maxErrors: ctx.caps.json_validate_errors!,
        maxSteps: ctx.caps.json_validate_steps!,
      },
      schemas.forTenant(ctx.tenant),
    ),
  exactNumbers: true,
  caps: {
    json_validate_instances: {
      free: 100,
      pro: 1_000,
      business: 10_000,
      describe: 'instances one /v1/json/validate request may validate',
    },
    json_validate_errors: {
      free: 100,
      pro: 1_000,
      business: 10_000,
      describe: 'output units one /v1/json/validate answer lists (the rest are counted)',
    },
    json_validate_steps: {
      free: 2_000_000,
      pro: 20_000_000,
      business: 50_000_000,
      describe: 'schema evaluation steps one /v1/json/validate request may take',
    },
  },
  cost: {
    worst: 'a schema of anyOf references fanning out 2^40 ways (heavy: always the pool)',
    usPerKiB: 1000,
    heavy: validateIsHeavy,
  },
  worst: validateWorst,
  warm: [
    {
      schema: ORDER,
      instances: [
        { sku: 'ABC-1234', qty: 2, price: 19.99 },
        { sku: 'abc', qty: 0, price: 1.001 },
      ],
    },
  ],
  examples: [
    {
      summary: 'Validate one instance; numbers are exact (19.99 is a multiple of 0.01)',
      body: { schema: ORDER, instance: { sku: 'ABC-1234', qty: 2, price: 19.99 } },
      data: { valid: true, errors: [], errors_omitted: 0 },
    },
    {
      summary: 'What fails, as "basic" output units',
      body: { schema: ORDER, instance: { sku: 'abc', qty: 0, price: 1.001 } },
      data: {
        valid: false,
        errors: [
          {
            instance_location: '/sku',
            keyword_location: '/properties/sku/pattern',
            absolute_keyword_location: '#/properties/sku/pattern',
            message: 'the string does not match ^[A-Z]{3}-[0-9]{4}$',
          },
          {
            instance_location: '/qty',
            keyword_location: '/properties/qty/minimum',
            absolute_keyword_location: '#/properties/qty/minimum',
            message: '0 is not at least 1',
          },
          {
            instance_location: '/price',
            keyword_location: '/properties/price/multipleOf',
            absolute_keyword_location: '#/properties/price/multipleOf',
            message: '1.001 is not a multiple of 0.01',
          },
        ],
        errors_omitted: 0,
      },
    },
    {
      summary: 'Many instances against one schema, compiled once',
      body: { schema: { type: 'integer', maximum: 10 }, instances: [3, 12] },
      data: {
        valid: false,
        results: [
          { valid: true, errors: [], errors_omitted: 0 },
          {
            valid: false,
            errors: [
              {
                instance_location: '',
                keyword_location: '/maximum',
                absolute_keyword_location: '#/maximum',
                message: '12 is not at most 10',
              },
            ],
            errors_omitted: 0,
          },
        ],
        errors_omitted: 0,
      },
    },
    {
      summary: 'A pattern that cannot run in linear time is refused, not run',
      body: { schema: { pattern: '^(?=.*[0-9]).{8,}' }, instance: 'password1' },
      error: {
        type: 'invalid_request',
        message:
          '"^(?=.*[0-9]).{8,}" cannot be run in linear time (lookaround assertions cannot run in linear time), at "/pattern"',
        code: 'ERR_UNSUPPORTED_REGEX',
        details: { schema_location: '/pattern', pattern: '^(?=.*[0-9]).{8,}' },
      },
    },
  ],
})
