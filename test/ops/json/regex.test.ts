import { describe, expect, it } from 'vitest'
import { compileEcma, RegexSyntaxError } from '../../../src/ops/json/regex/ecma.ts'
import { compileIRegexp, iregexpToRe2 } from '../../../src/ops/json/regex/iregexp.ts'
import { compileRe2, RegexRefused } from '../../../src/ops/json/regex/linear.ts'

// The translations to RE2 keep the dialects' meaning: each case is checked against V8's own RegExp (the
// ECMA-262 engine, with the u flag) on both engines the validator may pick.

const CASES: [string, string[]][] = [
  ['^.$', ['a', '\n', '\r', '\u2028', '\u2029', '😀', '']],
  ['^\\s+$', [' \t', '\u00a0', '\u2003', '\ufeff', '\u200b', 'a']],
  ['^\\S$', ['a', ' ', '\u3000']],
  ['^\\d+$', ['123', '١٢٣', '']],
  ['^\\w+$', ['a_1', 'é']],
  ['\\bfoo\\b', ['a foo b', 'afoo']],
  ['^[^a-c]$', ['d', 'b', '😀']],
  ['^\\p{Lu}\\p{Letter}*$', ['Éa', 'éa']],
  ['^\\P{L}$', ['1', 'a']],
  ['^\\p{Script=Greek}+$', ['αβ', 'ab']],
  ['^[\\s\\d]+$', [' 1', 'a']],
  ['^[\\S]$', ['a', ' ']],
  ['^\\u00e9\\u{1F600}\\x41$', ['é😀A', 'e😀A']],
  ['^\\uD83D\\uDE00$', ['😀']],
  ['^a{2,3}?b|c$', ['aab', 'c', 'ab']],
  ['^(?<x>a)(?:b)+$', ['abb', 'a']],
  ['^\\cJ$', ['\n', 'J']],
  ['^[]$', ['', 'a']],
  ['^[^]$', ['a', '\n']],
  ['^\\/\\.[\\-]$', ['/.-']],
  ['^[a-]$', ['-', 'a']],
]

describe('ECMA-262 patterns on RE2', () => {
  for (const [pattern, inputs] of CASES) {
    it(`${pattern} means what ECMA-262 says`, () => {
      const re = compileEcma(pattern)
      const v8 = new RegExp(pattern, 'u')
      for (const input of inputs) expect([input, re.search(input)]).toEqual([input, v8.test(input)])
    })
  }

  it('hands patterns of a linear shape to V8, the others to RE2', () => {
    expect(compileEcma('^[A-Z]{3}-[0-9]{4}$').engine).toBe('v8')
    expect(compileEcma('^[a-z0-9-]+$').engine).toBe('v8')
    for (const p of ['^(a+)+$', '[a-z]+$', 'a|b', '^a*b*$', '^(a+){3}$', '^(ab)+$'])
      expect(compileEcma(p).engine).toBe('re2')
  })

  it('refuses what cannot run in linear time, and what is not ECMA-262', () => {
    for (const p of [
      '(?=a)',
      '(?!a)',
      '(?<=a)',
      '(?<!a)',
      '(a)\\1',
      '\\k<x>(?<x>a)',
      'a{1001}',
      '\\p{Alphabetic}',
    ]) {
      expect(() => compileEcma(p)).toThrow(RegexRefused)
    }
    for (const p of ['(a', 'a)', '*a', '[b-a]', '\\a', 'a{2,1}', '\\u12', '\\-'])
      expect(() => compileEcma(p)).toThrow(RegexSyntaxError)
  })
})

describe('I-Regexp (RFC 9485) on RE2', () => {
  it('matches whole strings or searches, with `.` excluding only \\n and \\r', () => {
    const re = compileIRegexp('a.c')!
    expect([
      re.whole('abc'),
      re.whole('a\u2028c'),
      re.whole('a\nc'),
      re.whole('xabc'),
      re.search('xabc'),
    ]).toEqual([true, true, false, false, true])
  })

  it('is not an I-Regexp outside its grammar (no \\d, no lookaround, no lazy or possessive counts)', () => {
    for (const p of ['\\d', '(?=a)', 'a*?', 'a++', '(?:a)', '[\\d]', '\\p{Greek}', 'a{1,2'])
      expect(compileIRegexp(p)).toBeUndefined()
    for (const p of ['\\p{Lu}', '[a-z\\-]', '[^.]', 'a{2}', '\\.\\n']) expect(compileIRegexp(p)).toBeDefined()
  })

  it('runs a pattern with no quantifier or alternation on V8, meaning what it means on RE2', () => {
    const inputs = [
      'pro',
      'a pro',
      'prox',
      'ab',
      'xab',
      'a\u2028c',
      'a\nc',
      'a\rc',
      'abc',
      '😀',
      'é😀',
      'É.',
      '^x$',
    ]
    inputs.push('\ud800', '', 'Aé.', 'q-q', 'zq', '.x', 'xx')
    const linear = [
      'pro$',
      '^ab',
      'a.c',
      '[^.]x',
      '\\p{Lu}\\.',
      '[a-z\\-]q',
      '\\^x',
      '^$',
      'é😀',
      '^.$',
      '\\P{L}',
    ]
    for (const p of linear) {
      const re = compileIRegexp(p)!
      expect(re.engine, p).toBe('v8')
      const re2 = compileRe2(iregexpToRe2(p)!)
      for (const input of inputs) {
        expect(re.search(input), `search ${p} ${JSON.stringify(input)}`).toBe(re2.search(input))
        expect(re.whole(input), `whole ${p} ${JSON.stringify(input)}`).toBe(re2.whole(input))
      }
    }
    for (const p of ['a+', 'a|b', 'a{2}', '(ab)?', 'a*b', '.*'])
      expect(compileIRegexp(p)!.engine, p).toBe('re2')
  })
})
