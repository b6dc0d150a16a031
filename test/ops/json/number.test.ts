import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonDiff } from '../../../src/ops/json/diff/diff.ts'
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

  it('writes back every number of any text exactly (the fast path never skips one it must keep)', () => {
    fc.assert(
      fc.property(fc.array(numberText, { maxLength: 8 }), fc.constantFrom('', ' ', '\n  '), (numbers, ws) => {
        const text = `{"n":[${numbers.join(`,${ws}`)}],${ws}"m":${numbers[0] ?? 0}}`
        expect(numbersIn(JSON.stringify(parseJsonExact(text)))).toEqual(numbersIn(text))
      }),
      { ...SEED, numRuns: 500 },
    )
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
