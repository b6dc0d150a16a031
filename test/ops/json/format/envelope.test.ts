import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { okEnvelopeBytes, okEnvelopeValueBytes } from '../../../../src/lib/envelope.ts'
import { formatResultJson, jsonStringBytes } from '../../../../src/ops/json/format/envelope.ts'
import { formatJson } from '../../../../src/ops/json/format/format.ts'
import { opNamed } from '../../../helpers/ops.ts'

// What a pool thread answered before formatResultJson: JSON.stringify of the result, UTF-8 encoded.
const reference = (result: unknown) => Buffer.from(okEnvelopeBytes(JSON.stringify(result)))
const viaBytes = (result: unknown) =>
  Buffer.from(okEnvelopeValueBytes(result, opNamed('json.format').jsonBytes))

// Documents whose strings hold every kind of byte JSON.stringify escapes or keeps: quotes, backslashes,
// escaped controls, raw non-ASCII, astral characters; written with any whitespace, and duplicate keys
// (warnings) now and then.
const text = fc.oneof(
  fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }).map((v) => JSON.stringify(v, null, 2)),
  fc.jsonValue({ maxDepth: 3, stringUnit: 'grapheme' }).map((v) => JSON.stringify(v)),
  fc.constantFrom('{"a":1,"a":2}', '\ufeff[1]', '{"k":"\\u0001\\b\\f\\n\\r\\t\\"\\\\/é😀"}', '"\\ud800"'),
)

describe('json.format answers serialized from the printed bytes', () => {
  it('gives the bytes JSON.stringify and a UTF-8 encoder give, for any document, mode and indent', () => {
    fc.assert(
      fc.property(
        text,
        fc.constantFrom('minify', 'pretty'),
        fc.oneof(fc.integer({ min: 0, max: 8 }), fc.constant('\t' as const)),
        fc.boolean(),
        (input, mode, indent, sort_keys) => {
          const result = formatJson({ input, mode: mode as 'minify' | 'pretty', indent, sort_keys })
          expect(formatResultJson(result)).toBeDefined()
          expect(viaBytes(result).equals(reference(result))).toBe(true)
        },
      ),
      { seed: 24_2026, numRuns: 1500 },
    )
  })

  it('escapes any UTF-8 text as JSON.stringify does (every control character, quotes, non-ASCII)', () => {
    const escaped = (s: string) => Buffer.from(jsonStringBytes(Buffer.from(s, 'utf8'))).toString('utf8')
    let all = ''
    for (let c = 0; c < 0x80; c++) all += String.fromCharCode(c)
    expect(escaped(all)).toBe(JSON.stringify(all))
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary-ascii' }), (a, b) => {
        expect(escaped(a + b)).toBe(JSON.stringify(a + b))
      }),
      { seed: 24_2026, numRuns: 1000 },
    )
    // pretty output holds raw newlines and tabs
    const result = formatJson({ input: '{"a":[1,{"b":"x"}]}', indent: '\t' })
    expect(result.output).toContain('\n\t')
    expect(viaBytes(result).equals(reference(result))).toBe(true)
  })

  it('never makes the output string for an answer made from the printed bytes (JSON or raw bytes)', () => {
    const result = formatJson({ input: '{"a":[1,"é",{"b":null}]}', mode: 'minify' })
    const json = reference(result)
    const raw = Buffer.from(opNamed('json.format').octets!.bytes(result))
    expect(raw.toString('utf8')).toBe('{"a":[1,"é",{"b":null}]}')
    // the output read from here on throws: what the answer needs must come from the bytes
    Object.defineProperty(result, 'output', {
      get() {
        throw new Error('the output string was read')
      },
    })
    expect(viaBytes(result).equals(json)).toBe(true)
    expect(Buffer.from(opNamed('json.format').octets!.bytes(result)).equals(raw)).toBe(true)
    // where it is read (a job's stored result, an inline answer), it is the text, as a plain member
    const fresh = formatJson({ input: '[1, 2]', mode: 'minify' })
    expect({ ...fresh }).toEqual({ output: '[1,2]', bytes: 5 })
    expect(structuredClone(fresh)).toEqual({ output: '[1,2]', bytes: 5 })
    expect(JSON.stringify(fresh)).toBe('{"output":"[1,2]","bytes":5}')
  })

  it('gives the raw-bytes answer its own copy: moving it off the thread leaves the result whole', () => {
    // already minified and large: the printer's buffer is exactly the output (its own ArrayBuffer)
    const input = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ i, s: `é${i}` })))
    const result = formatJson({ input, mode: 'minify' })
    const bytes = opNamed('json.format').octets!.bytes(result)
    structuredClone(bytes, { transfer: [bytes.buffer as ArrayBuffer] })
    expect(bytes.byteLength).toBe(0)
    expect(result.output).toBe(input)
    expect(viaBytes(result).equals(reference({ output: input, bytes: result.bytes }))).toBe(true)
  })

  it('leaves to JSON.stringify what it cannot make: a result it did not print, bytes that are not UTF-8', () => {
    expect(formatResultJson({ output: 'x', bytes: 1 })).toBeUndefined()
    // a lone surrogate is kept as WTF-8 by the tokenizer, which then refuses it: never an answer
    expect(() => formatJson({ input: '"\ud800"' })).toThrow()
  })
})
