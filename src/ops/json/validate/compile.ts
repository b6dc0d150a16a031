import { compileEcma, RegexSyntaxError } from '../regex/ecma.ts'
import { type LinearRegex, RegexRefused } from '../regex/linear.ts'
import { isObject, type JsonObject } from '../value.ts'
import { type Context, Evaluated, type Hop } from './context.ts'
import { SchemaError } from './errors.ts'
import { KEYWORDS, LAST } from './keyword-index.ts'
import { type Place, Registry, type Resource } from './resources.ts'
import type { Dialect } from './types.ts'
import { DEFAULT_BASE, escapeToken } from './uri.ts'

// A schema compiled to closures, once: each subschema becomes a Node whose `check` validates an instance
// against it. Subschemas are compiled as their parent is; a reference's target when the reference is
// compiled (a cycle finds the node already begun); `$dynamicRef` targets when first taken.

// true when the instance is valid; output units go to the context. `ev`, when given, collects what the
// successful keywords evaluated (for unevaluatedProperties / unevaluatedItems of an enclosing schema).
export type Check = (instance: unknown, cx: Context, ev: Evaluated | undefined) => boolean

export interface Node {
  check: Check
  place: Place
  schema: unknown
}

export interface CompileOptions {
  // `format` asserts (format_assertion: true); otherwise it only does where the vocabulary says so
  formatAssertion: boolean
  // the dialect of a schema without `$schema` (2020-12 unless said)
  dialect?: Dialect
}

// What a keyword's compiler is handed.
export interface Site {
  schema: JsonObject
  place: Place
  dialect: Dialect
  keywords: ReadonlySet<string>
  compiler: Compiler
  // the subschema at a path below this schema, compiled
  sub(value: unknown, ...tokens: (string | number)[]): Node
  // this keyword's value is not what the dialect allows
  invalid(keyword: string, expected: string): never
}

export type KeywordCompiler = (site: Site, value: unknown) => Check | undefined

export class Compiler {
  private readonly nodes = new WeakMap<object, Node>()
  private readonly booleans = new Map<string, Node>()
  private readonly patterns = new Map<string, LinearRegex>()

  readonly registry: Registry
  readonly options: CompileOptions

  constructor(registry: Registry, options: CompileOptions) {
    this.registry = registry
    this.options = options
  }

  node(schema: unknown, place: Place): Node {
    if (typeof schema === 'boolean') return this.booleanNode(schema, place)
    if (!isObject(schema)) {
      throw new SchemaError(`a schema must be an object or a boolean, at "${place.doc || '/'}"`, 'schema', {
        schema_location: place.doc,
      })
    }
    const known = this.nodes.get(schema)
    if (known !== undefined) return known
    const node: Node = { check: () => true, place, schema }
    this.nodes.set(schema, node)
    node.check = this.compileObject(schema, place)
    return node
  }

  // A schema's regular expression (ECMA-262), compiled once per compilation, run in linear time.
  regex(pattern: string, location: string): LinearRegex {
    let re = this.patterns.get(pattern)
    if (re !== undefined) return re
    try {
      re = compileEcma(pattern)
    } catch (err) {
      const details = { schema_location: location, pattern }
      if (err instanceof RegexSyntaxError) {
        throw new SchemaError(
          `"${pattern}" is not an ECMA-262 regular expression (${err.message}), at "${location}"`,
          'schema',
          details,
        )
      }
      if (err instanceof RegexRefused) {
        throw new SchemaError(
          `"${pattern}" cannot be run in linear time (${err.message}), at "${location}"`,
          'regex',
          details,
        )
      }
      throw err
    }
    this.patterns.set(pattern, re)
    return re
  }

  private booleanNode(value: boolean, place: Place): Node {
    const key = `${place.resource.uri}#${place.doc}`
    const known = this.booleans.get(key)
    if (known !== undefined) return known
    const check: Check = value
      ? () => true
      : (_instance, cx) => {
          cx.step()
          return cx.fail(place, '', 'no value is valid against the false schema')
        }
    const node = { check, place, schema: value }
    this.booleans.set(key, node)
    return node
  }

  private compileObject(schema: JsonObject, place: Place): Check {
    const resource = place.resource
    const site: Site = {
      schema,
      place,
      dialect: resource.dialect,
      keywords: resource.keywords,
      compiler: this,
      sub: (value, ...tokens) => {
        const suffix = tokens.map((t) => `/${escapeToken(t)}`).join('')
        const known =
          typeof value === 'object' && value !== null ? this.registry.places.get(value) : undefined
        return this.node(
          value,
          known ?? { resource, pointer: place.pointer + suffix, doc: place.doc + suffix },
        )
      },
      invalid: (keyword, expected) => {
        throw new SchemaError(`"${keyword}" must be ${expected}, at "${place.doc}/${keyword}"`, 'schema', {
          schema_location: `${place.doc}/${escapeToken(keyword)}`,
        })
      },
    }
    const modern = resource.dialect === '2020-12' || resource.dialect === '2019-09'
    const refOnly = !modern && typeof schema['$ref'] === 'string'
    const checks: Check[] = []
    const last: Check[] = []
    for (const keyword of refOnly ? ['$ref'] : Object.keys(schema)) {
      if (!resource.keywords.has(keyword) || !Object.hasOwn(KEYWORDS, keyword)) continue
      const check = KEYWORDS[keyword]!(site, schema[keyword])
      if (check !== undefined) (LAST.has(keyword) ? last : checks).push(check)
    }
    const all = [...checks, ...last]
    const tracks = last.length > 0
    // the resource this schema is the root of, as the hop its check takes (one object, not one a call)
    const entered: Hop | undefined =
      place.pointer === '' && resource.root === schema ? { resource } : undefined
    // the common schema, which enters no resource and tracks nothing, with one to three keywords: its checks
    // called directly, each one whatever the others answered (every failure is reported)
    if (!tracks && entered === undefined && all.length <= 3) {
      const [a, b, c] = all
      if (a === undefined)
        return (_instance, cx) => {
          cx.step()
          return true
        }
      if (b === undefined)
        return (instance, cx, ev) => {
          cx.step()
          return a(instance, cx, ev)
        }
      if (c === undefined)
        return (instance, cx, ev) => {
          cx.step()
          const first = a(instance, cx, ev)
          return b(instance, cx, ev) && first
        }
      return (instance, cx, ev) => {
        cx.step()
        const first = a(instance, cx, ev)
        const second = b(instance, cx, ev)
        return c(instance, cx, ev) && first && second
      }
    }
    return (instance, cx, ev) => {
      cx.step()
      // unevaluated* read what the other keywords evaluated here, so they are collected even if the
      // enclosing schema does not ask
      const own = tracks ? new Evaluated() : ev
      if (entered !== undefined) cx.hop(entered)
      let valid = true
      for (let i = 0; i < all.length; i++) if (!all[i]!(instance, cx, own)) valid = false
      if (entered !== undefined) cx.unhop()
      if (tracks && ev !== undefined && own !== undefined) ev.merge(own)
      return valid
    }
  }
}

export interface CompiledSchema {
  compiler: Compiler
  root: Node
  resource: Resource
  // what it weighs in a cache (cache.ts), once kept there
  bytes?: number
}

// Compiles a schema (its dialect from `$schema`, 2020-12 without one). `documents` are more resources it
// may reference by URI (the test suite's remotes); the bundled meta-schemas always are.
export function compile(
  schema: unknown,
  options: CompileOptions,
  documents?: ReadonlyMap<string, unknown>,
): CompiledSchema {
  const registry = new Registry(documents)
  const resource = registry.addDocument(schema, DEFAULT_BASE, options.dialect ?? '2020-12')
  const compiler = new Compiler(registry, options)
  const root = compiler.node(schema, registry.placeOf(schema, resource, ''))
  return { compiler, root, resource }
}
