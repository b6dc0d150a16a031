import { describe, expect, it } from 'vitest'
import { AppError } from '../../../src/errors.ts'
import { convertBytes, convertData, defaultBounds, MAX_DEPTH } from '../../../src/ops/data/convert.ts'
import { convertQuery } from '../../../src/ops/data/schema.ts'
import type { ConvertInput, DataFormat } from '../../../src/ops/data/types.ts'

const BOUNDS = defaultBounds(0)

function convert(input: string, from: DataFormat, to: DataFormat, options?: ConvertInput['options']): string {
  return convertData({ input, from, to, ...(options ? { options } : {}) }, BOUNDS).output
}

function refusal(run: () => unknown): AppError {
  try {
    run()
  } catch (err) {
    if (err instanceof AppError) return err
    throw err
  }
  throw new Error('expected a refusal')
}

const EXACT =
  '{"big":12345678901234567890,"float":1.0,"tiny":0.10000000000000001,"neg":-0.0,"exp":1e400,"int":42}'

describe('data/convert: exact numbers', () => {
  it('keeps big integers and exact decimals through YAML and back, byte for byte', () => {
    const yaml = convert(EXACT, 'json', 'yaml')
    expect(yaml).toBe(
      'big: 12345678901234567890\nfloat: 1.0\ntiny: 0.10000000000000001\nneg: -0.0\nexp: 1.0e+400\nint: 42\n',
    )
    expect(convert(yaml, 'yaml', 'json', { indent: 0 })).toBe(EXACT.replace('1e400', '1.0e+400'))
  })

  it('keeps them through TOML where TOML can hold them, and through CSV with types "infer"', () => {
    const doc =
      '{"max":9223372036854775807,"min":-9223372036854775808,"float":1.0,"tiny":0.10000000000000001}'
    const toml = convert(doc, 'json', 'toml')
    expect(toml).toBe(
      'max = 9223372036854775807\nmin = -9223372036854775808\nfloat = 1.0\ntiny = 0.10000000000000001\n',
    )
    expect(convert(toml, 'toml', 'json', { indent: 0 })).toBe(doc)
    const csv = convert(`[${doc}]`, 'json', 'csv')
    expect(convert(csv, 'csv', 'json', { types: 'infer', indent: 0 })).toBe(`[${doc}]`)
  })

  it('rewrites YAML 1.2 and TOML number syntax into JSON exactly (0x, 0o, +, _, leading zeros)', () => {
    expect(convert('[0x1F, 0o17, +12, 007, .5, 1., -.inf, 0xFFFFFFFFFFFFFFFFFFFF]', 'yaml', 'yaml')).toBe(
      '- 31\n- 15\n- 12\n- 7\n- 0.5\n- 1.0\n- -.inf\n- 1208925819614629174706175\n',
    )
    expect(
      convert('a = 0xDEAD_BEEF\nb = 1_000\nc = +1.5e-3\nd = 0b1010', 'toml', 'json', { indent: 0 }),
    ).toBe('{"a":3735928559,"b":1000,"c":1.5e-3,"d":10}')
  })

  it('refuses what the target cannot hold, naming where and why', () => {
    const big = refusal(() => convert('{"a":{"b":[12345678901234567890]}}', 'json', 'toml'))
    expect(big.code).toBe('ERR_UNREPRESENTABLE')
    expect(big.details).toEqual({ path: '/a/b/0', reason: 'integer_range', to: 'toml' })
    expect(refusal(() => convert('{"a":9223372036854775808}', 'json', 'toml')).details).toMatchObject({
      reason: 'integer_range',
    })
    expect(refusal(() => convert('{"a":1e400}', 'json', 'toml')).details).toMatchObject({
      reason: 'float_range',
    })
    expect(refusal(() => convert('{"a":1e-400}', 'json', 'toml')).details).toMatchObject({
      reason: 'float_range',
    })
    expect(refusal(() => convert('a: .nan', 'yaml', 'json')).details).toEqual({
      path: '/a',
      reason: 'non_finite',
      to: 'json',
    })
    expect(refusal(() => convert('a = -inf', 'toml', 'csv')).code).toBe('ERR_UNREPRESENTABLE')
    expect(refusal(() => convert('{"a":null}', 'json', 'toml')).details).toMatchObject({ reason: 'null' })
    expect(refusal(() => convert('[1]', 'json', 'toml')).details).toMatchObject({ reason: 'root' })
    expect(refusal(() => convert('{"a":1}', 'json', 'csv')).details).toMatchObject({ reason: 'root' })
    expect(refusal(() => convert('[{"a":1},[1]]', 'json', 'csv')).details).toMatchObject({
      reason: 'mixed_rows',
    })
    expect(refusal(() => convert('["\\ud800"]', 'json', 'yaml')).details).toMatchObject({
      reason: 'lone_surrogate',
    })
    expect(refusal(() => convert('{"a":"\\udc00"}', 'json', 'toml')).details).toMatchObject({
      reason: 'lone_surrogate',
    })
    // JSON holds a lone surrogate, escaped
    expect(convert('["\\ud800"]', 'json', 'json', { indent: 0 })).toBe('["\\ud800"]')
  })

  it('writes TOML dates into JSON, YAML and CSV as RFC 3339 strings, and back into TOML as dates', () => {
    const toml =
      'odt = 1979-05-27 07:32:00.999999-07:00\nldt = 1979-05-27t07:32:00\nld = 1979-05-27\nlt = 07:32:00\n'
    expect(convert(toml, 'toml', 'json', { indent: 0 })).toBe(
      '{"odt":"1979-05-27T07:32:00.999999-07:00","ldt":"1979-05-27T07:32:00","ld":"1979-05-27","lt":"07:32:00"}',
    )
    expect(convert(toml, 'toml', 'yaml')).toContain('ld: "1979-05-27"\n')
    expect(convert(toml, 'toml', 'toml')).toBe(
      'odt = 1979-05-27T07:32:00.999999-07:00\nldt = 1979-05-27T07:32:00\nld = 1979-05-27\nlt = 07:32:00\n',
    )
  })
})

describe('data/convert: keys', () => {
  it('keeps key order, integer-like keys included, in every format', () => {
    const doc = '{"b":1,"2":2,"a":3,"1":4}'
    for (const to of ['json', 'yaml', 'toml'] as const) {
      expect(convert(convert(doc, 'json', to), to, 'json', { indent: 0 }), to).toBe(doc)
    }
    expect(convert(`[${doc}]`, 'json', 'csv')).toBe('b,2,a,1\r\n1,2,3,4\r\n')
  })

  it('keeps order in TOML by writing a table before the last plain value as dotted keys', () => {
    const doc =
      '{"name":"x","deps":{"a":"1","b":{"c":true}},"private":true,"tool":{"k":1},"many":[{"n":1},{"n":2}]}'
    const toml = convert(doc, 'json', 'toml')
    expect(toml).toBe(
      'name = "x"\ndeps.a = "1"\ndeps.b.c = true\nprivate = true\n\n[tool]\nk = 1\n\n[[many]]\nn = 1\n\n[[many]]\nn = 2\n',
    )
    expect(convert(toml, 'toml', 'json', { indent: 0 })).toBe(doc)
  })

  it('refuses a key twice: JSON (which json/format keeps), YAML and TOML (which forbid it), a CSV header', () => {
    const json = refusal(() => convert('{"a":{"k":1,"k":2}}', 'json', 'yaml'))
    expect(json.code).toBe('ERR_DUPLICATE_KEY')
    expect(json.details).toEqual({ path: '/a', key: 'k' })
    expect(refusal(() => convert('{"k":1,"k":1}', 'json', 'json')).code).toBe('ERR_DUPLICATE_KEY')
    expect(refusal(() => convert('a:\n  k: 1\n  k: 2\n', 'yaml', 'json')).details).toEqual({
      path: '/a',
      key: 'k',
    })
    // 1 and 0x1 are the same YAML integer; "1" and 1 are two keys of YAML but one of JSON
    expect(refusal(() => convert('{1: a, 0x1: b}', 'yaml', 'json')).code).toBe('ERR_DUPLICATE_KEY')
    expect(refusal(() => convert('{"1": a, 1: b}', 'yaml', 'json')).code).toBe('ERR_DUPLICATE_KEY')
    expect(refusal(() => convert('[t]\na = 1\na = 2', 'toml', 'json')).details).toEqual({
      path: '/t',
      key: 'a',
    })
    expect(refusal(() => convert('a,b,a\r\n1,2,3', 'csv', 'json')).details).toEqual({ path: '', key: 'a' })
  })

  it('writes YAML scalar keys as their text, and refuses a collection as a key', () => {
    expect(
      convert('{1: a, 1.50: b, true: c, null: d, ~: e}'.replace(', ~: e', ''), 'yaml', 'json', { indent: 0 }),
    ).toBe('{"1":"a","1.50":"b","true":"c","null":"d"}')
    expect(refusal(() => convert('? [a, b]\n: c\n', 'yaml', 'json')).details).toEqual({
      path: '',
      reason: 'key',
    })
  })
})

describe('data/convert: YAML', () => {
  it('quotes what a YAML 1.1 reader would read as something else (the Norway problem)', () => {
    expect(
      convert('["no","yes","on","y","1_000","0o17","2001-12-14","1e5","null","~",""]', 'json', 'yaml'),
    ).toBe(
      '- "no"\n- "yes"\n- "on"\n- "y"\n- "1_000"\n- "0o17"\n- "2001-12-14"\n- "1e5"\n- "null"\n- "~"\n- ""\n',
    )
  })

  it('reads one document, or with documents "stream" every document as an array, and writes streams', () => {
    expect(refusal(() => convert('a\n---\nb\n', 'yaml', 'json')).details).toEqual({
      path: '',
      reason: 'documents',
    })
    expect(convert('a\n---\nb\n', 'yaml', 'json', { documents: 'stream', indent: 0 })).toBe('["a","b"]')
    expect(convert('', 'yaml', 'json', { documents: 'stream', indent: 0 })).toBe('[]')
    expect(convert('', 'yaml', 'json')).toBe('null')
    expect(convert('[{"a":1},2]', 'json', 'yaml', { documents: 'stream' })).toBe('---\na: 1\n---\n2\n')
    expect(refusal(() => convert('{}', 'json', 'yaml', { documents: 'stream' })).details).toMatchObject({
      reason: 'root',
    })
  })

  it('expands aliases, refuses one inside its own anchor, and reads no YAML 1.1 types or merge keys', () => {
    expect(convert('a: &x [1, 2]\nb: *x\n', 'yaml', 'json', { indent: 0 })).toBe('{"a":[1,2],"b":[1,2]}')
    expect(refusal(() => convert('a: &x [*x]', 'yaml', 'json')).details).toEqual({
      path: '/a/0',
      reason: 'alias_cycle',
    })
    expect(refusal(() => convert('a: *nowhere', 'yaml', 'json')).code).toBe('ERR_INVALID_YAML')
    expect(
      convert('a: !!binary aGk=\nb: yes\nc: 2001-12-14\n<<: {d: 1}', 'yaml', 'json', { indent: 0 }),
    ).toBe('{"a":"aGk=","b":"yes","c":"2001-12-14","<<":{"d":1}}')
    expect(refusal(() => convert('a: !!int 1.5', 'yaml', 'json')).code).toBe('ERR_INVALID_YAML')
  })

  it('names where invalid YAML fails', () => {
    const err = refusal(() => convert('a: [1,\nb: 2', 'yaml', 'json'))
    expect(err.code).toBe('ERR_INVALID_YAML')
    expect(err.details).toMatchObject({ line: 2, column: 1 })
  })
})

describe('data/convert: CSV', () => {
  it('keeps strings by default and types unquoted fields with types "infer"', () => {
    const csv = 'n,s,b,e,q\r\n1.50,x,true,,"7"\r\n'
    expect(convert(csv, 'csv', 'json', { indent: 0 })).toBe(
      '[{"n":"1.50","s":"x","b":"true","e":"","q":"7"}]',
    )
    expect(convert(csv, 'csv', 'json', { types: 'infer', indent: 0 })).toBe(
      '[{"n":1.50,"s":"x","b":true,"e":null,"q":"7"}]',
    )
  })

  it('quotes the strings that types "infer" would type, so JSON → CSV → JSON with infer is exact', () => {
    const doc = '[{"s":"","n":"42","t":"true","f":"1.5e3","x":null,"i":42,"b":false,"d":1.50}]'
    const csv = convert(doc, 'json', 'csv')
    expect(csv).toBe('s,n,t,f,x,i,b,d\r\n"","42","true","1.5e3",,42,false,1.50\r\n')
    expect(convert(csv, 'csv', 'json', { types: 'infer', indent: 0 })).toBe(doc)
  })

  it('reads and writes other dialects and headerless records', () => {
    expect(convert("a;b\n'x;y';2", 'csv', 'json', { delimiter: ';', quote: "'", indent: 0 })).toBe(
      '[{"a":"x;y","b":"2"}]',
    )
    expect(convert('1,2\n3,4', 'csv', 'json', { header: false, indent: 0 })).toBe('[["1","2"],["3","4"]]')
    expect(convert('[{"a":"x;y"}]', 'json', 'csv', { delimiter: ';' })).toBe('a\r\n"x;y"\r\n')
    expect(convert('[{"a":1}]', 'json', 'csv', { header: false })).toBe('1\r\n')
  })

  it('refuses nested rows, or flattens them into dotted columns', () => {
    const doc = '[{"id":1,"a":{"b":2,"c":[3,4]}},{"id":2}]'
    expect(refusal(() => convert(doc, 'json', 'csv')).details).toEqual({
      path: '/0/a',
      reason: 'nested',
      to: 'csv',
    })
    expect(convert(doc, 'json', 'csv', { nested: 'flatten' })).toBe(
      'id,a.b,a.c.0,a.c.1\r\n1,2,3,4\r\n2,,,\r\n',
    )
    expect(refusal(() => convert('[{"a":{}}]', 'json', 'csv', { nested: 'flatten' })).details).toMatchObject({
      reason: 'nested',
    })
    expect(refusal(() => convert('[{"a.b":1,"a":{"b":2}}]', 'json', 'csv', { nested: 'flatten' })).code).toBe(
      'ERR_DUPLICATE_KEY',
    )
  })

  it('refuses what RFC 4180 does not allow, with the place', () => {
    const cases: [string, string][] = [
      ['a,b\r\n1,2,3\r\n', 'a record of 3 fields where the first has 2'],
      ['a\r\n"x\r\n', 'a quoted field is not closed'],
      ['a\r\n"x"y\r\n', 'text after the closing quote of a field'],
      ['a\r\nx"y\r\n', 'a quote inside an unquoted field'],
    ]
    for (const [csv, reason] of cases) {
      const err = refusal(() => convert(csv, 'csv', 'json'))
      expect(err.code, csv).toBe('ERR_INVALID_CSV')
      expect(err.details, csv).toMatchObject({ line: 2, reason })
    }
  })
})

describe('data/convert: options and input', () => {
  it('refuses an option the conversion does not use, and odd dialects', () => {
    const err = refusal(() => convert('{}', 'json', 'yaml', { delimiter: ';' }))
    expect(err.code).toBe('ERR_VALIDATION')
    expect(err.details).toEqual({
      issues: [{ path: 'options.delimiter', message: 'applies only when from or to is csv' }],
    })
    expect(refusal(() => convert('a,b', 'csv', 'json', { nested: 'flatten' })).code).toBe('ERR_VALIDATION')
    expect(refusal(() => convert('{}', 'json', 'csv', { types: 'infer' })).code).toBe('ERR_VALIDATION')
    expect(refusal(() => convert('{}', 'json', 'toml', { indent: 4 })).code).toBe('ERR_VALIDATION')
    expect(refusal(() => convert('{}', 'json', 'yaml', { indent: 0 })).code).toBe('ERR_VALIDATION')
    expect(refusal(() => convert('a', 'csv', 'json', { quote: ',' })).code).toBe('ERR_VALIDATION')
  })

  it('drops a leading BOM, refuses lone surrogates in YAML, TOML and CSV text and bodies that are not UTF-8', () => {
    expect(convert('\ufeffa = 1', 'toml', 'json', { indent: 0 })).toBe('{"a":1}')
    expect(refusal(() => convert('a: "\ud800"', 'yaml', 'json')).code).toBe('ERR_INVALID_ENCODING')
    const bytes = new Uint8Array([0x61, 0x3a, 0x20, 0xff])
    expect(refusal(() => convertBytes({ input: bytes, from: 'yaml', to: 'json' }, BOUNDS)).details).toEqual({
      field: 'body',
      encoding: 'utf8',
      position: 3,
    })
    expect(convertBytes({ input: Buffer.from('a: 1'), from: 'yaml', to: 'json' }, BOUNDS).output).toBe(
      '{\n  "a": 1\n}',
    )
  })
})

describe('data/convert: bounds', () => {
  const nested = (depth: number, from: DataFormat): string => {
    if (from === 'json' || from === 'yaml') return '['.repeat(depth) + ']'.repeat(depth)
    // TOML: the root table, then depth - 1 tables of dotted keys
    return `${Array.from({ length: depth - 1 }, () => 'a').join('.')}.b = 1`
  }

  it(`reads ${MAX_DEPTH} levels and refuses ${MAX_DEPTH + 1}, in JSON, YAML and TOML`, () => {
    for (const from of ['json', 'yaml', 'toml'] as const) {
      const to = from === 'toml' ? 'toml' : 'json'
      expect(() => convert(nested(MAX_DEPTH, from), from, to), from).not.toThrow()
      const err = refusal(() => convert(nested(MAX_DEPTH + 1, from), from, to))
      expect(err.code, from).toBe('ERR_COMPUTE_LIMIT')
      expect(err.details, from).toEqual({ reason: 'depth', limit: MAX_DEPTH, max_depth: MAX_DEPTH })
    }
    // a deep TOML table header, and deep YAML block nesting
    const header = `[${Array.from({ length: MAX_DEPTH }, () => 'a').join('.')}]`
    expect(refusal(() => convert(header, 'toml', 'json')).details).toMatchObject({ reason: 'depth' })
    const block = Array.from({ length: MAX_DEPTH + 1 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')
    expect(refusal(() => convert(block, 'yaml', 'json')).details).toMatchObject({ reason: 'depth' })
  })

  it('refuses aliases that would nest deeper than the bound once expanded', () => {
    // each anchor holds the one before it one level deeper: 600 aliases, 600 levels
    const lines = ['a0: &a0 []']
    for (let i = 1; i <= MAX_DEPTH; i++) lines.push(`a${i}: &a${i} [*a${i - 1}]`)
    expect(refusal(() => convert(lines.join('\n'), 'yaml', 'json')).details).toMatchObject({
      reason: 'depth',
    })
  })

  it('stops at the output cap, and passes at it', () => {
    const doc = `[${'"x",'.repeat(999)}"x"]`
    const output = convert(doc, 'json', 'json', { indent: 0 })
    const exact = { maxDepth: MAX_DEPTH, maxOutputBytes: output.length }
    expect(convertData({ input: doc, from: 'json', to: 'json', options: { indent: 0 } }, exact).output).toBe(
      output,
    )
    const under = { maxDepth: MAX_DEPTH, maxOutputBytes: output.length - 1 }
    for (const to of ['json', 'yaml', 'toml', 'csv'] as const) {
      const input =
        to === 'toml' ? `{"a":${doc}}` : to === 'csv' ? `[{"a":"${'x'.repeat(output.length)}"}]` : doc
      const err = refusal(() => convertData({ input, from: 'json', to }, under))
      expect(err.code, to).toBe('ERR_COMPUTE_LIMIT')
      expect(err.details, to).toEqual({
        reason: 'output_size',
        limit: output.length - 1,
        max_bytes: output.length - 1,
      })
    }
  })

  it('refuses a billion laughs before expanding it, and a scalar aliased past the cap', () => {
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for (let i = 1; i < 10; i++) {
      const prev = String.fromCharCode(96 + i)
      const name = String.fromCharCode(97 + i)
      laughs.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`)
    }
    const started = performance.now()
    const err = refusal(() => convert(laughs.join('\n'), 'yaml', 'json'))
    expect(err.details).toMatchObject({ reason: 'output_size' })
    expect(performance.now() - started).toBeLessThan(200)
    // one 64 KiB string aliased 100 times: the yaml package's maxAliasCount lets this through
    const wide = `s: &s "${'x'.repeat(65536)}"\nt: [${Array(100).fill('*s').join(',')}]`
    const small = { maxDepth: MAX_DEPTH, maxOutputBytes: 4 * 1024 * 1024 }
    expect(
      refusal(() => convertData({ input: wide, from: 'yaml', to: 'json' }, small)).details,
    ).toMatchObject({
      reason: 'output_size',
    })
    expect(
      convertData({ input: wide, from: 'yaml', to: 'json' }, { ...small, maxOutputBytes: 8 * 1024 * 1024 })
        .bytes,
    ).toBeGreaterThan(101 * 65536)
  })
})

describe('data/convert: the raw-body query', () => {
  it('reads the formats and options from the query string as the body names them', () => {
    expect(
      convertQuery.parse({ from: 'csv', to: 'json', delimiter: ';', header: 'false', indent: '0' }),
    ).toEqual({
      from: 'csv',
      to: 'json',
      options: { delimiter: ';', header: false, indent: 0 },
    })
    expect(convertQuery.safeParse({ from: 'csv', to: 'json', indent: '9' }).success).toBe(false)
    expect(convertQuery.safeParse({ from: 'csv', to: 'json', delimter: ';' }).success).toBe(false)
    expect(convertQuery.safeParse({ from: 'xml', to: 'json' }).success).toBe(false)
  })
})
