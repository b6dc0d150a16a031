import type { LinearRegex } from '../regex/linear.ts'
import { isObject, type JsonObject } from '../value.ts'
import type { Check, KeywordCompiler, Node, Site } from './compile.ts'
import { count } from './keyword-values.ts'
import { propertiesCheck, requiredCheck } from './members.ts'

// Keywords on objects. Members are read as own properties only: a member named "constructor" or
// "__proto__" is a member like any other.

function schemaMap(site: Site, keyword: string, value: unknown): [string, Node][] {
  if (!isObject(value)) site.invalid(keyword, 'an object of schemas')
  return Object.keys(value as JsonObject).map((name) => [
    name,
    site.sub((value as JsonObject)[name], keyword, name),
  ])
}

function patterns(site: Site): [LinearRegex, Node][] {
  const value = site.schema['patternProperties']
  if (!site.keywords.has('patternProperties') || value === undefined) return []
  if (!isObject(value)) site.invalid('patternProperties', 'an object of schemas')
  return Object.keys(value as JsonObject).map((p) => [
    site.compiler.regex(p, `${site.place.doc}/patternProperties`),
    site.sub((value as JsonObject)[p], 'patternProperties', p),
  ])
}

const properties: KeywordCompiler = (site, value) => {
  const entries = schemaMap(site, 'properties', value)
  return propertiesCheck(
    entries.map(([name]) => name),
    entries.map(([, node]) => node),
  )
}

const patternProperties: KeywordCompiler = (site) => {
  const list = patterns(site)
  return (v, cx, ev) => {
    if (!isObject(v)) return true
    let valid = true
    for (const name of Object.keys(v)) {
      for (const [re, node] of list) {
        if (!re.search(name)) continue
        cx.enter(name)
        if (!node.check(v[name], cx, undefined)) valid = false
        cx.leave()
        ev?.prop(name)
      }
    }
    return valid
  }
}

const additionalProperties: KeywordCompiler = (site, value) => {
  const node = site.sub(value, 'additionalProperties')
  const props = site.keywords.has('properties') && isObject(site.schema['properties'])
  const named = new Set(props ? Object.keys(site.schema['properties'] as JsonObject) : [])
  const list = patterns(site)
  const matches = (name: string) => {
    for (let i = 0; i < list.length; i++) if (list[i]![0].search(name)) return true
    return false
  }
  return (v, cx, ev) => {
    if (!isObject(v)) return true
    let valid = true
    // for-in, not Object.keys: no array a call (V8 reads its enum cache); an instance is what JSON.parse
    // made, whose prototype has no enumerable member, so for-in sees exactly the own members
    for (const name in v) {
      if (named.has(name) || (list.length > 0 && matches(name))) continue
      cx.enter(name)
      if (!node.check(v[name], cx, undefined)) valid = false
      cx.leave()
      ev?.prop(name)
    }
    return valid
  }
}

const unevaluatedProperties: KeywordCompiler = (site, value) => {
  const node = site.sub(value, 'unevaluatedProperties')
  return (v, cx, ev) => {
    if (!isObject(v)) return true
    let valid = true
    for (const name of Object.keys(v)) {
      if (ev?.hasProp(name)) continue
      cx.enter(name)
      if (!node.check(v[name], cx, undefined)) valid = false
      cx.leave()
      ev?.prop(name)
    }
    return valid
  }
}

const propertyNames: KeywordCompiler = (site, value) => {
  const node = site.sub(value, 'propertyNames')
  return (v, cx) => {
    if (!isObject(v)) return true
    let valid = true
    for (const name of Object.keys(v)) {
      cx.enter(name)
      if (!node.check(name, cx, undefined)) valid = false
      cx.leave()
    }
    return valid
  }
}

function names(site: Site, keyword: string, value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((n) => typeof n === 'string'))
    site.invalid(keyword, 'an array of strings')
  return value as string[]
}

const required: KeywordCompiler = (site, value) => {
  // draft-03's boolean `required` inside properties is not a keyword of any dialect here
  if (typeof value === 'boolean' && site.dialect === 'draft-04') return undefined
  return requiredCheck(names(site, 'required', value), site.place)
}

function dependentNames(site: Site, keyword: string, map: JsonObject, name: string): Check {
  const list = names(site, keyword, map[name])
  const place = site.place
  return (v, cx) => {
    if (!isObject(v) || !Object.hasOwn(v, name)) return true
    let valid = true
    for (const other of list) {
      if (!Object.hasOwn(v, other)) {
        valid = cx.fail(place, keyword, `the property "${other}" is required when "${name}" is present`)
      }
    }
    return valid
  }
}

function dependentSchema(node: Node, name: string): Check {
  return (v, cx, ev) => !isObject(v) || !Object.hasOwn(v, name) || node.check(v, cx, ev)
}

function all(checks: Check[]): Check {
  return (v, cx, ev) => {
    let valid = true
    for (const check of checks) if (!check(v, cx, ev)) valid = false
    return valid
  }
}

const dependentRequired: KeywordCompiler = (site, value) => {
  if (!isObject(value)) site.invalid('dependentRequired', 'an object of arrays of strings')
  const map = value as JsonObject
  return all(Object.keys(map).map((name) => dependentNames(site, 'dependentRequired', map, name)))
}

const dependentSchemas: KeywordCompiler = (site, value) =>
  all(schemaMap(site, 'dependentSchemas', value).map(([name, node]) => dependentSchema(node, name)))

// up to draft-07: each member an array of names or a schema
const dependencies: KeywordCompiler = (site, value) => {
  if (!isObject(value)) site.invalid('dependencies', 'an object')
  const map = value as JsonObject
  return all(
    Object.keys(map).map((name) =>
      Array.isArray(map[name])
        ? dependentNames(site, 'dependencies', map, name)
        : dependentSchema(site.sub(map[name], 'dependencies', name), name),
    ),
  )
}

function sizeBound(
  keyword: string,
  holds: (size: number, n: number) => boolean,
  words: string,
): KeywordCompiler {
  return (site, value) => {
    const n = count(site, keyword, value)
    const place = site.place
    return (v, cx) => {
      if (!isObject(v)) return true
      const size = Object.keys(v).length
      return holds(size, n) || cx.fail(place, keyword, `the object has ${size} properties, ${words} ${n}`)
    }
  }
}

export const OBJECT_KEYWORDS: Record<string, KeywordCompiler> = {
  properties,
  patternProperties,
  additionalProperties,
  unevaluatedProperties,
  propertyNames,
  required,
  dependentRequired,
  dependentSchemas,
  dependencies,
  minProperties: sizeBound('minProperties', (s, n) => s >= n, 'fewer than'),
  maxProperties: sizeBound('maxProperties', (s, n) => s <= n, 'more than'),
}
