import { describe, expect, it } from 'vitest'
import { parseJsonExact } from '../../../../src/ops/json/number.ts'
import { validateBody } from '../../../../src/ops/json/validate/schema.ts'
import { type InstanceResult, validateJson } from '../../../../src/ops/json/validate/validate.ts'

// json/validate as a client sees it: exact numbers, the output units, dialects, format, members named like
// Object.prototype's, duplicate keys.

const BOUNDS = { maxInstances: 100, maxErrors: 100, maxSteps: 1_000_000 }

// a request body as the endpoint reads it: lossless, then the schema's defaults
function run(body: string): InstanceResult {
  return validateJson(validateBody.parse(parseJsonExact(body)), BOUNDS) as InstanceResult
}

describe('json/validate', () => {
  it('compares big integers and decimals exactly', () => {
    const max = '{"schema": {"maximum": 12345678901234567890}, "instance": %}'
    expect(run(max.replace('%', '12345678901234567890')).valid).toBe(true)
    expect(run(max.replace('%', '12345678901234567891')).valid).toBe(false)
    const cents = '{"schema": {"multipleOf": 0.01}, "instance": %}'
    expect(run(cents.replace('%', '19.99')).valid).toBe(true)
    expect(run(cents.replace('%', '19.991')).valid).toBe(false)
    expect(run(cents.replace('%', '1e400')).valid).toBe(true)
    expect(run('{"schema": {"const": 1}, "instance": 1.0}').valid).toBe(true)
    expect(run('{"schema": {"const": 0.1}, "instance": 0.10000000000000001}').valid).toBe(false)
    expect(run('{"schema": {"type": "integer"}, "instance": 1e400}').valid).toBe(true)
  })

  it('answers basic output units, through references, bounded per request', () => {
    const result = run(`{
      "schema": {"$id": "https://example.com/order", "properties": {"qty": {"$ref": "#/$defs/qty"}},
                 "$defs": {"qty": {"type": "integer", "minimum": 1}}},
      "instance": {"qty": 0}}`)
    expect(result).toEqual({
      valid: false,
      errors: [
        {
          instance_location: '/qty',
          keyword_location: '/properties/qty/$ref/minimum',
          absolute_keyword_location: 'https://example.com/order#/$defs/qty/minimum',
          message: '0 is not at least 1',
        },
      ],
      errors_omitted: 0,
    })
    const relative = run('{"schema": {"items": {"type": "string"}}, "instance": ["a", 2]}')
    expect(relative.errors[0]).toMatchObject({
      instance_location: '/1',
      absolute_keyword_location: '#/items/type',
    })
  })

  it('reads the dialect from $schema, else from `dialect`', () => {
    // 2020-12 has prefixItems; draft-07 a tuple `items` and additionalItems
    const tuple = '{"items": [{"type": "string"}], "additionalItems": false}'
    expect(run(`{"schema": ${tuple}, "instance": ["a", 1], "dialect": "draft-07"}`).valid).toBe(false)
    expect(() => run(`{"schema": ${tuple}, "instance": ["a", 1]}`)).toThrow(/items/)
    const declared = `{"$schema": "http://json-schema.org/draft-07/schema#", ${tuple.slice(1)}`
    expect(run(`{"schema": ${declared}, "instance": ["a", 1]}`).valid).toBe(false)
    // up to draft-04, 1.0 is not an integer; since draft-06 it is
    const integer = '{"schema": {"type": "integer"}, "instance": 1.0, "dialect": "%"}'
    expect(run(integer.replace('%', 'draft-04')).valid).toBe(false)
    expect(run(integer.replace('%', 'draft-06')).valid).toBe(true)
  })

  it('validates against a bundled meta-schema, never fetching it', () => {
    const meta = '{"schema": {"$ref": "https://json-schema.org/draft/2020-12/schema"}, "instance": %}'
    expect(run(meta.replace('%', '{"type": "string"}')).valid).toBe(true)
    expect(run(meta.replace('%', '{"type": 12}')).valid).toBe(false)
  })

  it('annotates format by default and asserts it when asked', () => {
    const body = '{"schema": {"format": "email"}, "instance": "not an email"%}'
    expect(run(body.replace('%', '')).valid).toBe(true)
    expect(run(body.replace('%', ', "format_assertion": true')).valid).toBe(false)
    expect(
      run('{"schema": {"format": "date"}, "instance": "2024-02-30", "format_assertion": true}').valid,
    ).toBe(false)
  })

  it('reads members named like Object.prototype members as members, and only own ones', () => {
    const body =
      '{"schema": {"required": ["constructor", "__proto__"], "additionalProperties": false}, "instance": %}'
    expect(run(body.replace('%', '{}')).errors.map((e) => e.message)).toEqual([
      'the required property "constructor" is missing',
      'the required property "__proto__" is missing',
    ])
    const present = run(body.replace('%', '{"constructor": 1, "__proto__": 2}'))
    expect(present.errors.map((e) => e.instance_location)).toEqual(['/constructor', '/__proto__'])
  })

  it('validates the last of duplicate members, as the body is parsed', () => {
    expect(
      run('{"schema": {"properties": {"a": {"type": "string"}}}, "instance": {"a": 1, "a": "x"}}').valid,
    ).toBe(true)
  })

  it('refuses a body with neither or both of instance and instances', () => {
    expect(() => run('{"schema": true}')).toThrow(/exactly one/)
    expect(() => run('{"schema": true, "instance": 1, "instances": [1]}')).toThrow(/exactly one/)
    expect(run('{"schema": false, "instance": null}').valid).toBe(false)
  })
})

describe('json/validate resources', () => {
  it('finds an anchor under an `$id` that names the enclosing resource again', () => {
    const schema =
      '{"$id": "https://example.com/a", "$defs": {"x": {"$id": "https://example.com/a", "$anchor": "k", "type": "string"}}, "$ref": "#k"}'
    expect(run(`{"schema": ${schema}, "instance": 1}`).valid).toBe(false)
    expect(run(`{"schema": ${schema}, "instance": "s"}`).valid).toBe(true)
  })
})
