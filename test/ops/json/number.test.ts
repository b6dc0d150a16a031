import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonDiff } from '../../../src/ops/json/diff/diff.ts'
import { placeExactNumbers } from '../../../src/ops/json/exact-numbers.ts'
import { decimalKey, isRawNumber, numbersEqual, parseJsonExact } from '../../../src/ops/json/number.ts'
import { applyJsonPatch } from '../../../src/ops/json/patch/patch.ts'
import { jsonEqual } from '../../../src/ops/json/value.ts'

const SEED = { seed: 15_2026 }

// A JSON number's text: any sign, integer part, fraction and exponent RFC 8259 allows.
const numberText = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,39}$/)),
    fc.option(fc.stringMatching(/^[0-9]{1,30}$/), { nil: undefined }),
    fc.option(fc.tuple(fc.constantFrom('e', 'E', 'e+', 'e-', 'E-'), fc.stringMatching(/^[0-9]{1,4}$/)), {
      nil: undefined,
    }),
  )
  .map(
    ([minus, int, frac, exp]) =>
      `${minus ? '-' : ''}${int}${frac === undefined ? '' : `.${frac}`}${exp === undefined ? '' : exp.join('')}`,
  )

// What parseJsonExact must give, written as plainly as possible (recursive descent over regex tokens): the
// value JSON.parse builds (the last of duplicate members wins, at the first one's place; "__proto__" is an
// own member), with every number whose text is not its double's JSON.stringify text kept as rawJSON(text).
// Not JSON.parse with a reviver reading `context.source`: V8 (Node 24.21) loses the source of some numbers
// there, in a document with a non-ASCII string before them (seen under vitest: "undefined is not valid JSON").
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON
function reference(text: string): unknown {
  const token = /\s*(?:("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(true|false|null)|([{}[\],:]))/y
  const next = () => {
    const m = token.exec(text)
    if (!m) throw new Error(`no token at ${token.lastIndex}`)
    return m
  }
  const value = (m: RegExpExecArray): unknown => {
    const [, string, number, literal, punctuation] = m
    if (string !== undefined) return JSON.parse(string)
    if (number !== undefined) return String(Number(number)) === number ? Number(number) : rawJSON(number)
    if (literal !== undefined) return JSON.parse(literal)
    if (punctuation === '[') {
      const items: unknown[] = []
      for (let t = next(); t[4] !== ']'; t = next()) if (t[4] !== ',') items.push(value(t))
      return items
    }
    const members: Record<string, unknown> = {}
    for (let t = next(); t[4] !== '}'; t = next()) {
      if (t[4] === ',') continue
      const key = JSON.parse(t[1]!) as string
      next() // ":"
      Object.defineProperty(members, key, {
        value: value(next()),
        writable: true,
        enumerable: true,
        configurable: true,
      })
    }
    return members
  }
  return value(next())
}

// JSON texts that make a scanner's life hard: numbers of every spelling, strings holding quotes,
// backslashes, numbers, braces and non-ASCII, keys that repeat, need escapes or name Object.prototype
// members, any whitespace.
const ws = fc.constantFrom('', ' ', '\n  ', '\t')
const stringText = fc
  .array(fc.constantFrom('a', '1.0', '"', '\\', '{', '[', ',', ':', 'é', '😀', '\n', '-0', 'e5', ' '), {
    maxLength: 6,
  })
  .map((parts) => JSON.stringify(parts.join('')))
const keyText = fc.oneof(
  fc.constantFrom('"a"', '"b"', '"__proto__"', '"constructor"', '"1"', '"0"', '"a\\"b"', '"\\u0061"', '"é"'),
  stringText,
)
const jsonText = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    numberText,
    stringText,
    fc.constantFrom('true', 'false', 'null'),
    fc
      .tuple(fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 5 }), ws)
      .map(([items, w]) => `[${w}${items.map(([a, v, b]) => `${a}${v}${b}`).join(',')}]`),
    fc
      .tuple(fc.array(fc.tuple(keyText, ws, tie('value')), { maxLength: 5 }), ws)
      .map(([members, w]) => `{${w}${members.map(([k, a, v]) => `${k}${a}:${a}${v}`).join(`,${w}`)}}`),
  ),
})).value

// Every number token of a JSON text, in order (the texts here have no numbers inside strings).
const numbersIn = (text: string) => text.match(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? []

describe('exact JSON numbers', () => {
  it('compares by decimal value: 1 == 1.0 == 1e0 == 10e-1, -0 == 0, big integers by every digit', () => {
    const key = (t: string) => decimalKey(t)
    expect(new Set(['1', '1.0', '1e0', '10e-1', '0.1e1', '1.000E+0'].map(key)).size).toBe(1)
    expect(key('-0')).toBe(key('0'))
    expect(key('-0.0e5')).toBe('0')
    expect(key('12345678901234567890')).not.toBe(key('12345678901234567891'))
    expect(key('0.1')).not.toBe(key('0.10000000000000001'))
    expect(key('1e99999999999999999999')).not.toBe(key('1e99999999999999999998'))
    expect(key('10e99999999999999999999')).toBe(key('1e100000000000000000000'))
    expect(key('-1.50')).toBe(key('-15e-1'))
  })

  it('keeps plain doubles plain and every other number as written', () => {
    const plain = parseJsonExact('{"a":[1,-2,1.5,0.000001,1e+21,123456789012345]}') as { a: unknown[] }
    expect(plain.a.every((n) => typeof n === 'number')).toBe(true)
    const text =
      '{"a":[12345678901234567890,1.0,-0,1e400,0.10000000000000001,1E2,0.0000001,9007199254740993,-0.0]}'
    const exact = parseJsonExact(text) as { a: unknown[] }
    expect(exact.a.every(isRawNumber)).toBe(true)
    expect(JSON.stringify(exact)).toBe(text)
  })

  it('gives what a reviver gives, for any JSON text (strings, escapes, duplicate keys, __proto__, whitespace)', () => {
    fc.assert(
      fc.property(jsonText, ws, ws, (text, before, after) => {
        const whole = `${before}${text}${after}`
        const expected = JSON.stringify(reference(whole))
        expect(JSON.stringify(parseJsonExact(whole))).toBe(expected)
        // without shapes, the pass may be skipped: never for a text it would change
        expect(JSON.stringify(parseJsonExact(whole, false))).toBe(expected)
      }),
      { ...SEED, numRuns: 3000 },
    )
  })

  it('puts exact numbers in with one pass over the text, and gives up only above a duplicate key', () => {
    const text = '{"a":[1,2.50,{"b":"x\\"1.0","c":-0}],"__proto__":{"d":1e2},"n":12345678901234567890}'
    const placed = placeExactNumbers(text, JSON.parse(text))
    expect(placed).toBeDefined()
    expect(JSON.stringify(placed!.value)).toBe(text)
    expect(Object.getPrototypeOf(placed!.value)).toBe(Object.prototype)
    expect(placeExactNumbers('1.0', 1)?.value).toEqual(rawJSON('1.0'))
    // JSON.parse keeps the last "a": the pass cannot tell which member a number belongs to
    for (const dup of [
      '{"a":{"x":1.0},"a":{"x":2}}',
      '{"a":1.0,"a":1}',
      '{"a":[1.0],"a":5}',
      '{"a":1.0,"a":{"b":1}}',
    ]) {
      expect(placeExactNumbers(dup, JSON.parse(dup))).toBeUndefined()
      expect(JSON.stringify(parseJsonExact(dup))).toBe(JSON.stringify(reference(dup)))
    }
    // a duplicate key with no number to keep below it costs nothing
    expect(placeExactNumbers('{"a":1,"a":2}', { a: 2 })).toEqual({
      value: { a: 2 },
      deepest: 0,
      prototypeKeys: false,
    })
    // depth is the pass's own stack, never the call stack
    const deep = `${'['.repeat(20_000)}1.0${']'.repeat(20_000)}`
    let inner = placeExactNumbers(deep, JSON.parse(deep))!.value
    for (let i = 0; i < 20_000; i++) inner = (inner as unknown[])[0]
    expect(isRawNumber(inner)).toBe(true)
  })

  it('writes back every number of any text exactly (the fast path never skips one it must keep)', () => {
    fc.assert(
      fc.property(fc.array(numberText, { maxLength: 8 }), fc.constantFrom('', ' ', '\n  '), (numbers, ws) => {
        const text = `{"n":[${numbers.join(`,${ws}`)}],${ws}"m":${numbers[0] ?? 0}}`
        expect(numbersIn(JSON.stringify(parseJsonExact(text)))).toEqual(numbersIn(text))
        expect(numbersIn(JSON.stringify(parseJsonExact(text, false)))).toEqual(numbersIn(text))
      }),
      { ...SEED, numRuns: 500 },
    )
  })

  it('skips the pass without shapes only where no number needs its text: each kind at its edge', () => {
    // each needs its text kept, alone in a document, after each separator and JSON whitespace
    const kept = [
      '1e2',
      '1.5E-3',
      '-0',
      '-0.0',
      '1.50',
      '10.0',
      '0.0000001',
      '-0.0000001',
      '9007199254740993',
      '12345678901234567.1',
      '1234567890123.45678',
    ]
    // each is JSON.stringify's own text: the fast path leaves it a double
    const plain = ['0', '-1', '10', '1.5', '0.000001', '123456789012345', '12345678901234.5', '-0.5']
    for (const [sep, ws] of [
      ['[', ''],
      [',', ' '],
      [':', '\n\t'],
    ] as const) {
      for (const n of [...kept, ...plain]) {
        const text = sep === ':' ? `{"a"${sep}${ws}${n}}` : sep === '[' ? `[${n}]` : `[0${sep}${ws}${n}]`
        expect(JSON.stringify(parseJsonExact(text, false)), text).toBe(JSON.stringify(reference(text)))
        expect(JSON.stringify(parseJsonExact(text, false)), text).toBe(JSON.stringify(parseJsonExact(text)))
      }
    }
    for (const n of kept) expect(isRawNumber(parseJsonExact(` ${n}`, false)), n).toBe(true)
    // strings that look like such numbers cost the pass, never a wrong value
    expect(parseJsonExact('{"v":"1.0","w":[1,2]}', false)).toEqual({ v: '1.0', w: [1, 2] })
  })

  it('diffs 12345678901234567890 against ...891 and patches around it (issue 15, item 1)', () => {
    const left = parseJsonExact('{"id":12345678901234567890}')
    const right = parseJsonExact('{"id":12345678901234567891}')
    const diff = jsonDiff({ left, right, output: 'both' })
    expect(diff.equal).toBe(false)
    expect(JSON.stringify(diff.json_patch)).toBe(
      '[{"op":"replace","path":"/id","value":12345678901234567891}]',
    )
    expect(JSON.stringify(diff.delta)).toBe('{"id":[12345678901234567890,12345678901234567891]}')
    const patched = applyJsonPatch({
      document: parseJsonExact('{"id":12345678901234567890,"n":1}'),
      patch: parseJsonExact('[{"op":"replace","path":"/n","value":2.50}]') as unknown[],
    })
    expect(JSON.stringify(patched.result)).toBe('{"id":12345678901234567890,"n":2.50}')
    // equal by value: no change, and RFC 6902 test passes across spellings
    expect(jsonDiff({ left: parseJsonExact('[1.0,-0,1e2]'), right: [1, 0, 100] }).equal).toBe(true)
    const tested = applyJsonPatch({
      document: parseJsonExact('{"a":1e2}'),
      patch: parseJsonExact('[{"op":"test","path":"/a","value":100.0}]') as unknown[],
    })
    expect(JSON.stringify(tested.result)).toBe('{"a":1e2}')
    // a raw number is a value, not a container a pointer can walk into
    expect(() =>
      applyJsonPatch({
        document: parseJsonExact('{"a":1.0}'),
        patch: [{ op: 'add', path: '/a/rawJSON', value: 1 }],
      }),
    ).toThrow(/is a number/)
  })

  it('random big numbers through diff → patch give right exactly, and equal means equal values', () => {
    const doc = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        numberText,
        fc.constantFrom('"s"', 'null', 'true'),
        fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
        fc
          .array(fc.tuple(fc.constantFrom('a', 'b', 'id', 'c'), tie('value')), { maxLength: 4 })
          .map((members) => `{${[...new Map(members)].map(([k, v]) => `"${k}":${v}`).join(',')}}`),
      ),
    })).value
    fc.assert(
      fc.property(doc, doc, fc.boolean(), (leftText, rightText, moves) => {
        const left = parseJsonExact(leftText)
        const right = parseJsonExact(rightText)
        const diff = jsonDiff({ left, right, output: 'both', detect_moves: moves })
        // as a client would send the patch back: its text, parsed exactly
        const wire = parseJsonExact(JSON.stringify(diff.json_patch)) as unknown[]
        const result = applyJsonPatch({ document: left, patch: wire }).result
        expect(jsonEqual(result, right)).toBe(true)
        expect(diff.equal).toBe(jsonEqual(left, right))
        // the numbers the patch writes are those of right, as written
        for (const op of diff.json_patch ?? []) {
          if ('value' in op)
            for (const n of numbersIn(JSON.stringify(op.value))) expect(rightText).toContain(n)
        }
      }),
      { ...SEED, numRuns: 400 },
    )
  })

  it('numbersEqual agrees with exact rational comparison', () => {
    fc.assert(
      fc.property(numberText, numberText, (a, b) => {
        const ra = parseJsonExact(a) as never
        const rb = parseJsonExact(b) as never
        const exact = (t: string) => {
          const [mant, exp = '0'] = t.toLowerCase().split('e')
          const [i, f = ''] = mant!.replace('-', '').split('.')
          const sign = mant!.startsWith('-') ? -1n : 1n
          return { n: sign * BigInt(i! + f), e: Number(exp) - f.length }
        }
        const x = exact(a)
        const y = exact(b)
        const e = Math.min(x.e, y.e)
        const same = x.n * 10n ** BigInt(x.e - e) === y.n * 10n ** BigInt(y.e - e)
        expect(numbersEqual(ra, rb)).toBe(same)
      }),
      { ...SEED, numRuns: 500 },
    )
  })
})
