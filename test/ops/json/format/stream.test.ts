import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  formatJson,
  formatJsonBytes,
  type JsonFormatOptions,
} from '../../../../src/ops/json/format/format.ts'
import { MAX_DEPTH } from '../../../../src/ops/json/format/state.ts'
import {
  createJsonStream,
  endJsonStream,
  jsonStreamWarnings,
  writeJsonStream,
} from '../../../../src/ops/json/format/stream.ts'

type Outcome = { output: string; warnings?: unknown } | { error: string; details: unknown }

function outcome(run: () => { output: string; warnings?: unknown }): Outcome {
  try {
    const { output, warnings } = run()
    return warnings ? { output, warnings } : { output }
  } catch (err) {
    const e = err as { code?: string; details?: unknown }
    if (!e.code) throw err
    return { error: e.code, details: e.details }
  }
}

function oneShot(bytes: Uint8Array, options: JsonFormatOptions): Outcome {
  return outcome(() => formatJsonBytes({ ...options, input: bytes }))
}

// Feeds the bytes in pieces cut at `cuts` and joins what comes out.
function streamed(bytes: Uint8Array, options: JsonFormatOptions, cuts: number[]): Outcome {
  return outcome(() => {
    const stream = createJsonStream({ ...options, warnings: true, buffered: true })
    const out: Buffer[] = []
    let from = 0
    for (const cut of [...cuts, bytes.length]) {
      out.push(...writeJsonStream(stream, bytes.subarray(from, cut)))
      from = cut
    }
    out.push(endJsonStream(stream))
    return { output: Buffer.concat(out).toString('utf8'), warnings: jsonStreamWarnings(stream) }
  })
}

function written(stream: ReturnType<typeof createJsonStream>, text: string): string {
  return Buffer.concat([...writeJsonStream(stream, Buffer.from(text))]).toString()
}

function cutsOf(positions: number[], length: number): number[] {
  return [...new Set(positions.map((p) => p % (length + 1)))].sort((a, b) => a - b)
}

function everyByte(length: number): number[] {
  return Array.from({ length }, (_, i) => i)
}

const options = fc.record({
  mode: fc.constantFrom('pretty' as const, 'minify' as const),
  indent: fc.oneof(fc.integer({ min: 0, max: 8 }), fc.constant('\t' as const)),
  sort_keys: fc.boolean(),
})

// Valid documents with what splits badly: multi-byte UTF-8 (astral too), \u escapes (pairs, lone
// surrogates), long numbers with fractions and exponents, literals, duplicate keys, deep-ish nesting.
// Some characters of strings and keys are written as \u escapes, chosen by `seed`.
function escapeSome(token: string, seed: number): string {
  let n = seed
  // existing escapes are kept whole; astral characters become an escaped surrogate pair
  return token.replace(/\\u[0-9a-fA-F]{4}|\\.|[^\x00-\x7f]|[a-z]/gu, (ch) => {
    n = (n * 1103515245 + 12345) & 0x7fffffff
    if (ch.startsWith('\\') || n % 4 !== 0) return ch
    const units = Array.from({ length: ch.length }, (_, k) => ch.charCodeAt(k))
    return units.map((u) => `\\u${u.toString(16).padStart(4, '0')}`).join('')
  })
}
const leaf = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('12345678901234567890', '-0.5e+300', '1E-7', '0', 'true', 'false', 'null').map((raw) => ({
    raw,
  })),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
)
type Node = unknown
const tree = fc.letrec<{ node: Node; array: Node; object: Node }>((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('node'), { maxLength: 5 }).map((items) => ({ items })),
  object: fc
    .array(fc.tuple(fc.constantFrom('a', 'b', 'é', '😀', '\\u0061', 'k\\"', ''), tie('node')), {
      maxLength: 5,
    })
    .map((members) => ({ members })),
})).node

// Writes the tree as JSON text with `space` as indentation ('' for none); keys are written as given.
function render(value: Node, space: string, depth: number, seed: number): string {
  const pad = space === '' ? '' : `\n${space.repeat(depth + 1)}`
  const end = space === '' ? '' : `\n${space.repeat(depth)}`
  if (value !== null && typeof value === 'object') {
    if ('raw' in value) return String(value.raw)
    if ('items' in value) {
      const items = value.items as Node[]
      return `[${items.map((v) => pad + render(v, space, depth + 1, seed)).join(',')}${items.length ? end : ''}]`
    }
    if ('members' in value) {
      const members = value.members as [string, Node][]
      const text = members.map(
        ([k, v]) => `${pad}"${escapeSome(k, seed)}": ${render(v, space, depth + 1, seed)}`,
      )
      return `{${text.join(',')}${members.length ? end : ''}}`
    }
  }
  return typeof value === 'string' ? escapeSome(JSON.stringify(value), seed) : JSON.stringify(value)
}

const valid = fc
  .tuple(tree, fc.constantFrom('', ' ', '  ', '\t', ' \r\n'), fc.nat(), fc.boolean())
  .map(([v, space, seed, bom]) => (bom ? '\ufeff' : '') + render(v, space, 0, seed))

// Invalid documents: edits that break the grammar, the escapes, the numbers or the UTF-8.
const junk = fc.constantFrom(
  ...'{}[]:,"\\ 0-.eE+tfnu/\'x\t\n'.split('').map((c) => [c.charCodeAt(0)]),
  [0xff],
  [0xc3],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xc0, 0xaf],
  [0xef, 0xbb, 0xbf],
  [0x01],
  [0xc3, 0xa9],
)
const invalid = fc
  .tuple(valid, fc.array(fc.tuple(fc.nat(), fc.nat(2), junk), { minLength: 1, maxLength: 3 }))
  .map(([text, edits]) => {
    let bytes = Buffer.from(text, 'utf8')
    for (const [at, kind, piece] of edits) {
      const i = at % (bytes.length + 1)
      const insert = Buffer.from(piece)
      const rest = kind === 0 ? bytes.subarray(i + 1) : kind === 1 ? bytes.subarray(i) : bytes.subarray(i + 1)
      bytes = Buffer.concat([bytes.subarray(0, i), kind === 0 ? Buffer.alloc(0) : insert, rest])
    }
    return bytes
  })

describe('json format streaming: any split gives the one-shot answer', () => {
  it('valid documents: same output and warnings, cut anywhere', () => {
    fc.assert(
      fc.property(valid, options, fc.array(fc.nat(), { maxLength: 8 }), (text, opts, positions) => {
        const bytes = Buffer.from(text, 'utf8')
        const expected = oneShot(bytes, opts)
        expect(expected).toHaveProperty('output')
        expect(streamed(bytes, opts, cutsOf(positions, bytes.length))).toEqual(expected)
      }),
      { numRuns: 400 },
    )
  })

  it('valid documents fed one byte at a time', () => {
    fc.assert(
      fc.property(valid, options, (text, opts) => {
        const bytes = Buffer.from(text, 'utf8')
        expect(streamed(bytes, opts, everyByte(bytes.length))).toEqual(oneShot(bytes, opts))
      }),
      { numRuns: 150 },
    )
  })

  it('invalid documents: the same error at the same place, cut anywhere', () => {
    fc.assert(
      fc.property(invalid, options, fc.array(fc.nat(), { maxLength: 8 }), (bytes, opts, positions) => {
        const expected = oneShot(bytes, opts)
        expect(streamed(bytes, opts, cutsOf(positions, bytes.length))).toEqual(expected)
        expect(streamed(bytes, opts, everyByte(bytes.length))).toEqual(expected)
      }),
      { numRuns: 500 },
    )
  })

  it('the text form agrees with the bytes form (byte_offset aside)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          valid.map((t) => Buffer.from(t)),
          invalid,
        ),
        options,
        (bytes, opts) => {
          const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes)
          if (!Buffer.from(text, 'utf8').equals(bytes)) return
          const fromText = outcome(() => formatJson({ ...opts, input: text }))
          const fromBytes = oneShot(bytes, opts)
          if ('details' in fromBytes) {
            const { byte_offset: _, ...details } = fromBytes.details as Record<string, unknown>
            expect(fromText).toEqual({ ...fromBytes, details })
          } else {
            expect(fromText).toEqual(fromBytes)
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('json format streaming: tokens split across chunks', () => {
  const cases: [string, string][] = [
    ['a string with escapes', '["a\\u00e9\\ud83d\\ude00\\n\\"b"]'],
    ['multi-byte UTF-8', '["é😀東"]'],
    ['a long number', '[-12345678901234567890.123456789e-12345]'],
    ['literals', '[true,false,null]'],
    ['a BOM', '\ufeff{"a":1}'],
    ['sorted keys with escapes', '{"b":{"y":1,"\\u0078":2},"a":[{"d":1,"c":2}]}'],
  ]
  for (const [what, text] of cases) {
    it(`${what}, at every cut`, () => {
      const bytes = Buffer.from(text, 'utf8')
      for (const opts of [{ mode: 'minify' as const }, { mode: 'pretty' as const, sort_keys: true }]) {
        const expected = oneShot(bytes, opts)
        for (let cut = 0; cut <= bytes.length; cut++) {
          expect(streamed(bytes, opts, [cut])).toEqual(expected)
        }
      }
    })
  }

  it('names a stray multi-byte character split across chunks, and refuses a truncated one', () => {
    const stray = Buffer.from('[1,😀]', 'utf8')
    expect(streamed(stray, {}, [4, 5, 6])).toEqual({
      error: 'ERR_INVALID_JSON',
      details: {
        line: 1,
        column: 4,
        offset: 3,
        byte_offset: 3,
        reason: 'Unexpected U+1F600, expected a value',
      },
    })
    const truncated = Buffer.from([0x5b, 0x22, 0xe2, 0x82])
    expect(streamed(truncated, {}, [3])).toEqual({
      error: 'ERR_INVALID_JSON',
      details: {
        line: 1,
        column: 3,
        offset: 2,
        byte_offset: 2,
        reason: 'Invalid UTF-8 sequence starting with byte 0xE2',
      },
    })
  })

  it('reports the first error in document order, even before invalid UTF-8 further on', () => {
    const bytes = Buffer.concat([Buffer.from('[1,]'), Buffer.from([0xff])])
    expect(streamed(bytes, {}, [2])).toMatchObject({
      error: 'ERR_INVALID_JSON',
      details: { offset: 3, byte_offset: 3, reason: 'Trailing comma before ]' },
    })
  })

  it('hands output over as chunks arrive (minify of an array streams element by element)', () => {
    const stream = createJsonStream({ mode: 'minify', warnings: false, buffered: false })
    expect(written(stream, '[ 1 , "a" ,')).toBe('[1,"a",')
    expect(written(stream, ' tr')).toBe('tr')
    expect(written(stream, 'ue ]')).toBe('ue]')
    expect(endJsonStream(stream).toString()).toBe('')
  })

  it('holds each outermost object back for sort_keys, and streams the array around them', () => {
    const stream = createJsonStream({ mode: 'minify', sort_keys: true, warnings: false, buffered: false })
    expect(written(stream, '[{"b":1,')).toBe('[')
    expect(written(stream, '"a":2}, {"d":')).toBe('{"a":2,"b":1},')
    expect(written(stream, '[{"z":0,"y":1}],"c":3}]')).toBe('{"c":3,"d":[{"y":1,"z":0}]}]')
  })

  it('hands large pretty output over in bounded pieces', () => {
    // a declared body of 2 MB allows 32 MB of output (16x)
    const stream = createJsonStream({
      mode: 'pretty',
      indent: 8,
      warnings: false,
      buffered: false,
      expected_bytes: 2_000_000,
    })
    const pieces = [...writeJsonStream(stream, Buffer.from('['.repeat(2000)))]
    expect(pieces.length).toBeGreaterThan(10)
    for (const piece of pieces) expect(piece.length).toBeLessThan(512 * 1024)
    const total = pieces.reduce((sum, p) => sum + p.length, 0)
    // line k holds '[' after k * 8 spaces
    expect(total).toBe(2000 + 1999 + 8 * ((1999 * 2000) / 2))
  })

  it('stops at the output budget (16x the input, 1 MiB at least) as soon as it is passed', () => {
    // 4 KB of '[' at indent 8 would be 64 MB of output: the sink refuses it after writing 1 MiB
    const stream = createJsonStream({ mode: 'pretty', indent: 8, warnings: false, buffered: false })
    let written = 0
    let error: unknown
    // CPU time of this thread, which a loaded machine does not stretch as it does wall time
    const wall = performance.now()
    const cpu = process.threadCpuUsage()
    try {
      for (const piece of writeJsonStream(stream, Buffer.from('['.repeat(4000)))) written += piece.length
    } catch (err) {
      error = err
    }
    const used = process.threadCpuUsage(cpu)
    expect((used.user + used.system) / 1000).toBeLessThan(250)
    expect(performance.now() - wall).toBeLessThan(10_000)
    expect(error).toMatchObject({
      code: 'ERR_COMPUTE_LIMIT',
      details: { reason: 'output_size', limit: 1024 * 1024 },
    })
    expect(written).toBeLessThanOrEqual(1024 * 1024)
  })

  it('refuses nesting past 2^24 levels, whatever the mode', () => {
    const deep = Buffer.alloc(MAX_DEPTH + 1, 0x5b)
    expect(oneShot(deep, { mode: 'minify' })).toEqual({
      error: 'ERR_COMPUTE_LIMIT',
      details: { limit: 'depth', max_depth: 2 ** 24 },
    })
    expect(oneShot(deep.subarray(1), { mode: 'minify' })).toMatchObject({
      details: { reason: `Unexpected end of input (${MAX_DEPTH} unclosed)` },
    })
  })
})
