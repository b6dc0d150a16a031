import { isObject, type JsonObject } from '../value.ts'
import {
  dialectOf,
  isKnownVocabulary,
  isModern,
  keywordsOf,
  ONE_SCHEMA,
  SCHEMA_ARRAYS,
  SCHEMA_MAPS,
} from './dialects.ts'
import { SchemaError } from './errors.ts'
import { metaSchemas } from './meta.ts'
import { type Dialect, MAX_SCHEMA_DEPTH } from './types.ts'
import { type BadUri, escapeToken, pointerTokens, resolveUri, splitFragment } from './uri.ts'

// The schema resources one compilation can reach: the tenant's schema, the resources it bundles (`$id`),
// the bundled meta-schemas, and (in tests) extra documents such as the test suite's remotes. Each
// document is walked once, when first needed: every subschema gets its place (resource, pointer,
// dialect), every `$id`, `$anchor` and `$dynamicAnchor` is registered. Nothing is fetched.

export interface Resource {
  uri: string
  root: unknown
  dialect: Dialect
  keywords: ReadonlySet<string>
  // the format-assertion vocabulary is on (2020-12 meta-schema that requires or allows it)
  formatAssertion: boolean
  anchors: Map<string, unknown>
  dynamicAnchors: Map<string, unknown>
  // 2019-09 `$recursiveAnchor: true` at the resource's root
  recursiveAnchor: boolean
  // the resource root's JSON Pointer in its document
  docPointer: string
}

export interface Place {
  resource: Resource
  // JSON Pointer from the resource's root
  pointer: string
  // JSON Pointer from the document's root (keyword locations are written from these)
  doc: string
}

export class Registry {
  readonly resources = new Map<string, Resource>()
  readonly places = new WeakMap<object, Place>()
  private readonly documents: ReadonlyMap<string, unknown>
  private readonly walked = new Set<string>()

  constructor(extra: ReadonlyMap<string, unknown> = new Map()) {
    this.documents = new Map([...metaSchemas(), ...extra])
  }

  // Walks a document found at `uri` (its retrieval URI), its dialect `fallback` unless it says otherwise.
  addDocument(root: unknown, uri: string, fallback: Dialect): Resource {
    this.walked.add(uri)
    const dialect = this.dialectFrom(root, fallback)
    // the root's own `$id`, if any, is the base its references resolve against
    let base = uri
    const id = isObject(root) ? root[dialect === 'draft-04' ? 'id' : '$id'] : undefined
    const refOnly = !isModern(dialect) && isObject(root) && typeof root['$ref'] === 'string'
    if (typeof id === 'string' && !refOnly) {
      try {
        base = splitFragment(resolveUri(id, uri))[0]
      } catch (err) {
        throw new SchemaError((err as BadUri).message)
      }
    }
    const resource = this.newResource(base, root, dialect, '')
    this.resources.set(uri, resource)
    this.walk(root, resource, '', '', 0, true)
    return resource
  }

  // The resource at an absolute URI (no fragment), walking a known document for it if need be.
  resource(uri: string, fallback: Dialect): Resource | undefined {
    const found = this.resources.get(uri)
    if (found !== undefined || this.walked.has(uri)) return found
    const document = this.documents.get(uri)
    if (document === undefined) return undefined
    this.addDocument(document, uri, fallback)
    return this.resources.get(uri)
  }

  // What an absolute URI with a fragment names: [the subschema, its place], or undefined.
  lookup(uri: string, fallback: Dialect): { schema: unknown; place: Place } | undefined {
    const [absolute, fragment] = splitFragment(uri)
    const resource = this.resource(absolute, fallback)
    if (resource === undefined) return undefined
    if (fragment === undefined || fragment === '')
      return { schema: resource.root, place: this.placeOf(resource.root, resource, '') }
    const tokens = pointerTokens(fragment)
    if (tokens === undefined) {
      if (!resource.anchors.has(fragment)) return undefined
      const schema = resource.anchors.get(fragment)
      return { schema, place: this.placeOf(schema, resource, '') }
    }
    let node: unknown = resource.root
    for (const token of tokens) {
      if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < node.length)
        node = node[Number(token)]
      else if (isObject(node) && Object.hasOwn(node, token)) node = node[token]
      else return undefined
    }
    return { schema: node, place: this.placeOf(node, resource, fragment) }
  }

  // A subschema's place: the one its walk recorded, or (a pointer into a spot the walk did not visit, or
  // a boolean schema) one made from the resource it is reached through.
  placeOf(schema: unknown, resource: Resource, pointer: string): Place {
    if (typeof schema === 'object' && schema !== null) {
      const known = this.places.get(schema)
      if (known !== undefined) return known
    }
    return { resource, pointer, doc: resource.docPointer + pointer }
  }

  private newResource(uri: string, root: unknown, dialect: Dialect, docPointer: string): Resource {
    const { keywords, formatAssertion } = this.vocabularies(root, dialect)
    const resource: Resource = {
      uri,
      root,
      dialect,
      keywords,
      formatAssertion,
      anchors: new Map(),
      dynamicAnchors: new Map(),
      recursiveAnchor: isObject(root) && root['$recursiveAnchor'] === true && dialect === '2019-09',
      docPointer,
    }
    if (!this.resources.has(uri)) this.resources.set(uri, resource)
    return resource
  }

  // The dialect a resource root declares with `$schema`: one of the five, or a meta-schema among the
  // known documents, whose own dialect it takes (and whose `$vocabulary` then applies).
  private dialectFrom(root: unknown, fallback: Dialect): Dialect {
    if (!isObject(root) || typeof root['$schema'] !== 'string') return fallback
    const uri = root['$schema']
    const known = dialectOf(uri)
    if (known !== undefined) return known
    const meta = this.metaSchema(uri, fallback)
    return meta.dialect
  }

  private metaSchema(uri: string, fallback: Dialect): Resource {
    let absolute: string
    try {
      absolute = splitFragment(resolveUri(uri, 'anvil:/'))[0]
    } catch {
      throw new SchemaError(`"$schema" is not a URI: "${uri}"`)
    }
    const meta = this.resource(absolute, fallback)
    if (meta === undefined) {
      throw new SchemaError(
        `"$schema" names an unknown meta-schema: "${uri}" (never fetched; bundle it)`,
        'ref',
      )
    }
    return meta
  }

  private vocabularies(
    root: unknown,
    dialect: Dialect,
  ): { keywords: ReadonlySet<string>; formatAssertion: boolean } {
    if (
      !isModern(dialect) ||
      !isObject(root) ||
      typeof root['$schema'] !== 'string' ||
      dialectOf(root['$schema'])
    ) {
      return { keywords: keywordsOf(dialect), formatAssertion: false }
    }
    const meta = this.metaSchema(root['$schema'], dialect)
    const declared = isObject(meta.root) ? meta.root['$vocabulary'] : undefined
    if (!isObject(declared)) return { keywords: keywordsOf(dialect), formatAssertion: false }
    const on: string[] = []
    for (const [vocabulary, required] of Object.entries(declared)) {
      if (isKnownVocabulary(vocabulary)) on.push(vocabulary)
      else if (required === true)
        throw new SchemaError(`the meta-schema requires an unknown vocabulary: "${vocabulary}"`)
    }
    return {
      keywords: keywordsOf(dialect, on),
      formatAssertion: on.some((v) => v.endsWith('/format-assertion')),
    }
  }

  private walk(
    schema: unknown,
    resource: Resource,
    pointer: string,
    doc: string,
    depth: number,
    isRoot: boolean,
  ): void {
    if (depth > MAX_SCHEMA_DEPTH) {
      throw new SchemaError(`the schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`, 'depth')
    }
    if (!isObject(schema)) return
    let current = resource
    let here = pointer
    const modern = isModern(resource.dialect)
    const idKey = resource.dialect === 'draft-04' ? 'id' : '$id'
    // up to draft-07, `$ref` makes its siblings (an `$id` among them) ignored
    const refOnly = !modern && typeof schema['$ref'] === 'string'
    const id = schema[idKey]
    if (typeof id === 'string' && !refOnly && !isRoot) {
      let resolved: string
      try {
        resolved = resolveUri(id, resource.uri)
      } catch (err) {
        throw new SchemaError((err as BadUri).message)
      }
      const [absolute, fragment] = splitFragment(resolved)
      if (modern && fragment !== undefined && fragment !== '') {
        throw new SchemaError(`"$id" must not have a fragment: "${id}"`)
      }
      if (fragment !== undefined && fragment !== '' && !fragment.startsWith('/')) {
        // up to draft-07, "$id": "#name" names a plain-name anchor
        const target = absolute === resource.uri ? resource : this.resources.get(absolute)
        target?.anchors.set(fragment, schema)
      }
      if (!id.startsWith('#') && absolute !== resource.uri) {
        current = this.newResource(absolute, schema, this.dialectFrom(schema, resource.dialect), doc)
        here = ''
      }
    }
    this.places.set(schema, { resource: current, pointer: here, doc })
    if (typeof schema['$anchor'] === 'string' && modern) current.anchors.set(schema['$anchor'], schema)
    if (typeof schema['$dynamicAnchor'] === 'string' && current.dialect === '2020-12') {
      current.anchors.set(schema['$dynamicAnchor'], schema)
      current.dynamicAnchors.set(schema['$dynamicAnchor'], schema)
    }
    if (refOnly && !Object.hasOwn(schema, 'definitions')) return
    const sub = (value: unknown, ...tokens: (string | number)[]) => {
      const suffix = tokens.map((t) => `/${escapeToken(t)}`).join('')
      this.walk(value, current, here + suffix, doc + suffix, depth + 1, false)
    }
    for (const key of Object.keys(schema)) {
      const value = schema[key]
      if (ONE_SCHEMA.has(key)) sub(value, key)
      else if (SCHEMA_ARRAYS.has(key) || key === 'items' || key === 'dependencies') {
        if (Array.isArray(value)) value.forEach((item, i) => void sub(item, key, i))
        else if (key === 'dependencies' && isObject(value)) {
          for (const name of Object.keys(value)) sub(value[name], key, name)
        } else if (key === 'items') sub(value, key)
      } else if (SCHEMA_MAPS.has(key) && isObject(value)) {
        for (const name of Object.keys(value as JsonObject)) sub(value[name], key, name)
      }
    }
  }
}
