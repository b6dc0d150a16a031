import type { KeywordCompiler, Node, Site } from './compile.ts'
import { Evaluated } from './context.ts'

// The in-place applicators: subschemas that validate the same instance. Annotations (what was evaluated,
// for unevaluated*) are kept only from the subschemas that passed; output units only from the ones whose
// failure makes this schema fail.

function branches(site: Site, keyword: string, value: unknown): Node[] {
  if (!Array.isArray(value) || value.length === 0) site.invalid(keyword, 'a non-empty array of schemas')
  return (value as unknown[]).map((item, i) => site.sub(item, keyword, i))
}

const allOf: KeywordCompiler = (site, value) => {
  const nodes = branches(site, 'allOf', value)
  return (v, cx, ev) => {
    let valid = true
    for (let i = 0; i < nodes.length; i++) if (!nodes[i]!.check(v, cx, ev)) valid = false
    return valid
  }
}

const anyOf: KeywordCompiler = (site, value) => {
  const nodes = branches(site, 'anyOf', value)
  const place = site.place
  return (v, cx, ev) => {
    const mark = cx.mark()
    let valid = false
    for (let i = 0; i < nodes.length; i++) {
      const own = ev === undefined ? undefined : new Evaluated()
      if (nodes[i]!.check(v, cx, own)) {
        valid = true
        if (own === undefined) break
        ev!.merge(own)
      }
    }
    if (valid) {
      cx.restore(mark)
      return true
    }
    return cx.fail(place, 'anyOf', 'the value is valid against none of the subschemas')
  }
}

const oneOf: KeywordCompiler = (site, value) => {
  const nodes = branches(site, 'oneOf', value)
  const place = site.place
  return (v, cx, ev) => {
    const mark = cx.mark()
    const passed: number[] = []
    let kept: Evaluated | undefined
    for (let i = 0; i < nodes.length && passed.length < 2; i++) {
      const own = ev === undefined ? undefined : new Evaluated()
      if (nodes[i]!.check(v, cx, own)) {
        passed.push(i)
        kept = own
      }
    }
    if (passed.length === 1) {
      cx.restore(mark)
      if (kept !== undefined) ev!.merge(kept)
      return true
    }
    if (passed.length === 0)
      return cx.fail(place, 'oneOf', 'the value is valid against none of the subschemas')
    cx.restore(mark)
    return cx.fail(
      place,
      'oneOf',
      `the value is valid against more than one subschema (${passed.join(' and ')})`,
    )
  }
}

const not: KeywordCompiler = (site, value) => {
  const node = site.sub(value, 'not')
  const place = site.place
  return (v, cx) => {
    const mark = cx.mark()
    const inner = node.check(v, cx, undefined)
    cx.restore(mark)
    return !inner || cx.fail(place, 'not', 'the value is valid against the schema it must not match')
  }
}

const ifKeyword: KeywordCompiler = (site, value) => {
  const condition = site.sub(value, 'if')
  const has = (k: string) => site.keywords.has(k) && Object.hasOwn(site.schema, k)
  const then = has('then') ? site.sub(site.schema['then'], 'then') : undefined
  const otherwise = has('else') ? site.sub(site.schema['else'], 'else') : undefined
  return (v, cx, ev) => {
    const mark = cx.mark()
    const own = ev === undefined ? undefined : new Evaluated()
    const holds = condition.check(v, cx, own)
    cx.restore(mark)
    if (holds) {
      if (own !== undefined) ev!.merge(own)
      return then === undefined || then.check(v, cx, ev)
    }
    return otherwise === undefined || otherwise.check(v, cx, ev)
  }
}

// then and else are applied by if; without it they do nothing
const byIf: KeywordCompiler = () => undefined

export const LOGIC_KEYWORDS: Record<string, KeywordCompiler> = {
  allOf,
  anyOf,
  oneOf,
  not,
  if: ifKeyword,
  // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword; this table is no promise
  then: byIf,
  else: byIf,
}
