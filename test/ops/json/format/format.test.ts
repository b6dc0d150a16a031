import { describe, expect, it } from 'vitest'
import { formatJson, formatJsonBytes } from '../../../../src/ops/json/format/format.ts'

function minify(input: string, sort_keys = false): string {
  return formatJson({ input, mode: 'minify', sort_keys }).output
}

function invalidAt(input: string) {
  try {
    formatJson({ input })
  } catch (err) {
    const e = err as {
      code: string
      details: { line: number; column: number; offset: number; reason: string }
    }
    expect(e.code).toBe('ERR_INVALID_JSON')
    return e.details
  }
  throw new Error(`accepted: ${JSON.stringify(input)}`)
}

describe('json format: lossless output', () => {
  it('pretty-prints with 2 spaces by default, empty containers stay on one line', () => {
    expect(formatJson({ input: '{"a":[1,{"b":null}],"c":{},"d":[]}' })).toEqual({
      output: '{\n  "a": [\n    1,\n    {\n      "b": null\n    }\n  ],\n  "c": {},\n  "d": []\n}',
      bytes: 73,
    })
  })

  it('copies numbers exactly as written, never through a double', () => {
    const input = '[12345678901234567890, 1.0, -0, 1e400, 0.1e-999, -1.50E+10, 2e0]'
    expect(minify(input)).toBe('[12345678901234567890,1.0,-0,1e400,0.1e-999,-1.50E+10,2e0]')
    expect(formatJson({ input, indent: 0 }).output).toBe(
      '[\n12345678901234567890,\n1.0,\n-0,\n1e400,\n0.1e-999,\n-1.50E+10,\n2e0\n]',
    )
  })

  it('keeps string escapes byte for byte, including lone surrogate escapes', () => {
    const input = '{ "k\\u0041" : "\\ud800 \\/ \\u00e9 é \\n \\"" }'
    expect(minify(input)).toBe('{"k\\u0041":"\\ud800 \\/ \\u00e9 é \\n \\""}')
  })

  it('keeps key order and integer-like keys where they were', () => {
    expect(minify('{"b":1,"10":2,"a":3,"2":4}')).toBe('{"b":1,"10":2,"a":3,"2":4}')
  })

  it('accepts any top-level value and the four whitespace characters only', () => {
    expect(minify(' \t\r\n"x" \n')).toBe('"x"')
    expect(minify('-0.5e+3')).toBe('-0.5e+3')
    expect(minify('null')).toBe('null')
    expect(invalidAt('\f1').reason).toMatch(/U\+000C/)
    expect(invalidAt('\u00a01').offset).toBe(0)
  })

  it('indents with 0–8 spaces or a tab', () => {
    expect(formatJson({ input: '[1,[2]]', indent: '\t' }).output).toBe('[\n\t1,\n\t[\n\t\t2\n\t]\n]')
    expect(formatJson({ input: '{"a":1}', indent: 8 }).output).toBe('{\n        "a": 1\n}')
  })

  it('counts UTF-8 bytes of the output', () => {
    expect(formatJson({ input: '["é😀"]', mode: 'minify' }).bytes).toBe(10)
  })

  it('reports duplicate keys, keeps them, and compares keys after decoding escapes', () => {
    const result = formatJson({ input: '{\n  "a": 1,\n  "\\u0061": 2,\n  "b": {"a": 3}\n}', mode: 'minify' })
    expect(result.output).toBe('{"a":1,"\\u0061":2,"b":{"a":3}}')
    expect(result.warnings).toEqual([
      {
        code: 'duplicate_key',
        message: 'Duplicate key "a" (kept).',
        key: 'a',
        line: 3,
        column: 3,
        offset: 14,
      },
    ])
  })

  it('finds duplicates in large objects too, and caps the list at 100', () => {
    const many = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',')
    expect(formatJson({ input: `{${many},"k39":0,"k0":0}` }).warnings?.map((w) => w.key)).toEqual([
      'k39',
      'k0',
    ])
    const dup = `{${Array.from({ length: 150 }, () => '"x":1').join(',')}}`
    const warnings = formatJson({ input: dup }).warnings!
    expect(warnings).toHaveLength(101)
    expect(warnings[100]).toMatchObject({
      code: 'more_duplicate_keys',
      message: '49 more duplicate keys are not listed.',
    })
  })

  it('reports and drops a leading byte order mark', () => {
    expect(formatJson({ input: '\ufeff{"a":1}', mode: 'minify' })).toEqual({
      output: '{"a":1}',
      bytes: 7,
      warnings: [
        {
          code: 'byte_order_mark',
          message: 'A leading byte order mark (U+FEFF) was dropped.',
          line: 1,
          column: 1,
          offset: 0,
        },
      ],
    })
    expect(invalidAt('[\ufeff1]').reason).toMatch(/byte order mark/)
  })
})

describe('json format: sort_keys', () => {
  it('sorts by code point: integer-like keys as strings, astral after U+FFFF', () => {
    const input = '{"\u{1F600}":1,"\uffff":2,"b":3,"10":4,"9":5,"B":6,"":7}'
    expect(minify(input, true)).toBe('{"":7,"10":4,"9":5,"B":6,"b":3,"\uffff":2,"\u{1F600}":1}')
    // JavaScript's default sort (UTF-16 units) would put the emoji first among the last two
    expect(['\uffff', '\u{1F600}'].sort()).toEqual(['\u{1F600}', '\uffff'])
  })

  it('sorts by decoded key, keeps duplicates in their order, and recurses into nested values', () => {
    expect(minify('{"b":[{"z":1,"y":2}],"\\u0061":1,"b":0}', true)).toBe(
      '{"\\u0061":1,"b":[{"y":2,"z":1}],"b":0}',
    )
  })

  it('pretty-prints sorted output', () => {
    expect(formatJson({ input: '{"b":{"d":1,"c":2},"a":[]}', sort_keys: true }).output).toBe(
      '{\n  "a": [],\n  "b": {\n    "c": 2,\n    "d": 1\n  }\n}',
    )
  })
})

describe('json format: strict RFC 8259', () => {
  const cases: [string, string, { line: number; column: number; offset: number }][] = [
    ['[1,]', 'Trailing comma before ]', { line: 1, column: 4, offset: 3 }],
    ['{"a":1,}', 'Trailing comma before }', { line: 1, column: 8, offset: 7 }],
    ['[01]', 'Leading zeros are not allowed in numbers', { line: 1, column: 3, offset: 2 }],
    ['[-01]', 'Leading zeros are not allowed in numbers', { line: 1, column: 4, offset: 3 }],
    ['[1.]', "Unexpected ']', expected a digit after the decimal point", { line: 1, column: 4, offset: 3 }],
    [
      '[.5]',
      "Unexpected '.', expected a value (a number starts with - or a digit)",
      { line: 1, column: 2, offset: 1 },
    ],
    ['[1e]', "Unexpected ']', expected a digit in the exponent", { line: 1, column: 4, offset: 3 }],
    [
      '[NaN]',
      "Unexpected 'N', expected a value (NaN and Infinity are not JSON numbers)",
      { line: 1, column: 2, offset: 1 },
    ],
    [
      '[-Infinity]',
      "Unexpected 'I', expected a digit (NaN and Infinity are not JSON numbers)",
      { line: 1, column: 3, offset: 2 },
    ],
    [
      "{'a':1}",
      `Unexpected "'", expected a key in double quotes (strings and keys take double quotes)`,
      { line: 1, column: 2, offset: 1 },
    ],
    [
      '[1] // c',
      "Unexpected '/', expected end of input after the top-level value (JSON has no comments)",
      { line: 1, column: 5, offset: 4 },
    ],
    [
      '["a\tb"]',
      'Unescaped control character U+0009 in a string; write it as \\u0009',
      { line: 1, column: 4, offset: 3 },
    ],
    [
      '["\\x"]',
      'Invalid escape: only \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX exist',
      { line: 1, column: 4, offset: 3 },
    ],
    ['["\\u12G4"]', 'Invalid \\u escape: expected four hex digits', { line: 1, column: 7, offset: 6 }],
    ['["abc', 'Unterminated string (opened at offset 1)', { line: 1, column: 6, offset: 5 }],
    ['{"a" 1}', "Unexpected '1', expected ':' after the key", { line: 1, column: 6, offset: 5 }],
    ['[tru]', 'Invalid literal, expected true', { line: 1, column: 2, offset: 1 }],
    ['[1 2]', "Unexpected '2', expected ',' or ']'", { line: 1, column: 4, offset: 3 }],
    ['{"a":1]', "Unexpected ']', expected ',' or '}'", { line: 1, column: 7, offset: 6 }],
    ['', 'The JSON text is empty', { line: 1, column: 1, offset: 0 }],
    ['  \n ', 'The JSON text is empty', { line: 2, column: 2, offset: 4 }],
    ['{\n  "a": [1,\n', 'Unexpected end of input (2 unclosed)', { line: 3, column: 1, offset: 13 }],
    [
      '1 2',
      "Unexpected '2', expected end of input after the top-level value",
      { line: 1, column: 3, offset: 2 },
    ],
  ]
  for (const [input, reason, where] of cases) {
    it(`refuses ${JSON.stringify(input)} at ${where.line}:${where.column}`, () => {
      expect(invalidAt(input)).toEqual({ ...where, reason })
    })
  }

  it('counts offsets in UTF-16 units and lines by \\n', () => {
    expect(invalidAt('["😀",\n  x]')).toEqual({
      line: 2,
      column: 3,
      offset: 9,
      reason: "Unexpected 'x', expected a value",
    })
  })

  it('refuses an unescaped lone surrogate (it has no UTF-8 form) but accepts proper pairs', () => {
    expect(invalidAt('["a\ud800"]')).toMatchObject({
      offset: 3,
      reason: expect.stringMatching(/Lone UTF-16 surrogate/),
    })
    expect(invalidAt('["\udc00\ud800"]').offset).toBe(2)
    expect(minify('["\ud83d\ude00"]')).toBe('["😀"]')
  })

  it('says so in the message', () => {
    expect(() => formatJson({ input: '[1,]' })).toThrowError(
      'Invalid JSON at line 1, column 4: Trailing comma before ].',
    )
  })
})

describe('json format: deep nesting (iterative, no stack overflow)', () => {
  const depth = 100_000
  const arrays = '['.repeat(depth) + ']'.repeat(depth)
  const objects = '{"a":'.repeat(depth) + '0' + '}'.repeat(depth)

  it('minifies 100,000 nested arrays and objects, sorted or not', () => {
    expect(formatJson({ input: arrays, mode: 'minify' }).output).toBe(arrays)
    expect(formatJson({ input: objects, mode: 'minify', sort_keys: true }).output).toBe(objects)
  })

  it('pretty-prints them with indent 0 (a value per line)', () => {
    const out = formatJson({ input: arrays, indent: 0 }).output
    expect(out.length).toBe(4 * depth - 2)
    expect(out.startsWith('[\n[\n')).toBe(true)
  })

  it('refuses an indented pretty print whose size grows quadratically with ERR_COMPUTE_LIMIT', () => {
    expect(() => formatJson({ input: arrays })).toThrowError(
      expect.objectContaining({
        code: 'ERR_COMPUTE_LIMIT',
        details: { reason: 'output_size', limit: 16 * arrays.length, max_bytes: 16 * arrays.length },
      }),
    )
  })

  it('locates an error 100,000 levels down', () => {
    expect(invalidAt('['.repeat(depth) + ']'.repeat(depth - 1) + '}')).toMatchObject({
      offset: 2 * depth - 1,
    })
  })
})

describe('json format: UTF-8 bytes', () => {
  const bytes = (...parts: (string | number[])[]) =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))))

  it('formats UTF-8 bytes and reports a BOM', () => {
    const result = formatJsonBytes({ input: bytes([0xef, 0xbb, 0xbf], '{"é":[1]}'), mode: 'minify' })
    expect(result.output).toBe('{"é":[1]}')
    expect(result.warnings?.[0]?.code).toBe('byte_order_mark')
  })

  it('refuses invalid UTF-8 with the UTF-16 offset of the decoded prefix and the byte offset', () => {
    const invalid = [
      [0xff],
      [0xc0, 0xaf], // overlong "/"
      [0xed, 0xa0, 0x80], // UTF-8-encoded surrogate U+D800
      [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
      [0xe2, 0x82], // truncated
    ]
    for (const seq of invalid) {
      try {
        formatJsonBytes({ input: bytes('\n["😀é', seq, '"]') })
        throw new Error('accepted')
      } catch (err) {
        expect(err).toMatchObject({
          code: 'ERR_INVALID_JSON',
          details: {
            line: 2,
            column: 6,
            offset: 6,
            byte_offset: 9,
            reason: expect.stringMatching(/^Invalid UTF-8/),
          },
        })
      }
    }
  })

  it('adds byte_offset to syntax errors', () => {
    expect(() => formatJsonBytes({ input: bytes('["é",]') })).toThrowError(
      expect.objectContaining({
        details: { line: 1, column: 6, offset: 5, byte_offset: 6, reason: 'Trailing comma before ]' },
      }),
    )
  })
})
