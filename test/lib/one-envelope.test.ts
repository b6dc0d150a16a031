import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// The success envelope is built in one place, src/lib/envelope.ts: as text, as bytes, or around bytes. No
// other module of src/ or workers/ may spell it, as a string (`"ok":true`) or as an object literal with `ok:
// true` and a `data` member, in any order and layout (issue 37: a grep for the string let an object
// literal in define-route.ts slip past).

// Each object literal that has a member `ok: true` and a member `data` (shorthand or not), in code.
function envelopeLiterals(source: string): string[] {
  // comments and the text of string literals are blanked (documentation may show the envelope); the
  // envelope's own text, `"ok":true` as JSON.stringify writes it, is looked for in the source itself
  const code = source.replace(
    /\/\/[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g,
    (m) => (m.startsWith('/') ? ' '.repeat(m.length) : `${m[0]}${' '.repeat(m.length - 2)}${m[0]}`),
  )
  const found: string[] = []
  for (const m of code.matchAll(/\bok\s*:\s*true\b/g)) {
    // the literal around it: back to its unmatched '{', forward to its '}'
    let depth = 0
    let start = -1
    for (let i = m.index - 1; i >= 0; i--) {
      const c = code[i]
      if (c === '}' || c === ']' || c === ')') depth++
      else if (c === '{' || c === '[' || c === '(') {
        if (depth === 0) {
          if (c === '{') start = i
          break
        }
        depth--
      }
    }
    if (start < 0) continue
    depth = 0
    let end = -1
    for (let i = start; i < code.length; i++) {
      const c = code[i]
      if (c === '{' || c === '[' || c === '(') depth++
      else if (c === '}' || c === ']' || c === ')') {
        depth--
        if (depth === 0) {
          end = i
          break
        }
      }
    }
    const literal = code.slice(start, end + 1)
    // its own members only: what nested literals hold is blanked out
    let top = ''
    depth = 0
    for (const c of literal) {
      if (c === '{' || c === '[' || c === '(') depth++
      if (depth <= 1) top += c
      if (c === '}' || c === ']' || c === ')') depth--
    }
    if (/[{,]\s*data\s*[,:}]|[{,]\s*\.\.\.\s*\{\s*data\b/.test(top)) found.push(literal.replace(/\s+/g, ' '))
  }
  if (/"ok":true/.test(source.replace(/\/\/[^\n]*/g, ''))) found.push('"ok":true')
  return found
}

describe('one envelope builder', () => {
  it('recognises the envelope however it is spelled', () => {
    expect(envelopeLiterals('reply.send({ ok: true, data })')).toHaveLength(1)
    expect(envelopeLiterals('JSON.stringify({\n  data: result,\n  ok: true,\n})')).toHaveLength(1)
    expect(envelopeLiterals('const e = { data: { ok: false }, ok: true }')).toHaveLength(1)
    expect(envelopeLiterals('const t = `{"ok":true,"data":` + x')).toHaveLength(1)
    // a reply of the worker protocol or of submit() is not the envelope
    expect(envelopeLiterals('return { ok: true, reply, pool: pool.name, waitMs, runMs }')).toEqual([])
    expect(envelopeLiterals('const r = { ok: true, value: { data: 1 } }')).toEqual([])
    expect(envelopeLiterals('// { ok: true, data } is built in envelope.ts')).toEqual([])
  })

  it('is src/lib/envelope.ts: no other module of src/ or workers/ builds it', () => {
    const root = new URL('../../', import.meta.url).pathname
    const files = ['src', 'workers'].flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => `${dir}/${f}`),
    )
    const builders = files.filter((f) => envelopeLiterals(readFileSync(join(root, f), 'utf8')).length > 0)
    expect(builders).toEqual(['src/lib/envelope.ts'])
  })
})
