import type { Check, KeywordCompiler, Node, Site } from './compile.ts'
import type { Context, Hop } from './context.ts'
import { SchemaError } from './errors.ts'
import { type BadUri, resolveUri, splitFragment } from './uri.ts'

// References: $ref (static), $dynamicRef (2020-12) and $recursiveRef (2019-09), which may land on a
// schema chosen by the dynamic scope (the schema resources evaluation went through to get here). A
// reference names a resource the schema bundles or a meta-schema; nothing is fetched: one that names
// nothing is refused at compile time (ERR_SCHEMA_REF_UNRESOLVED). Cycles end: each hop is counted, and a
// chain of hops that reads nothing further into the instance is refused (Context.hop).

function target(site: Site, keyword: string, ref: string): { uri: string; node: Node } {
  let uri: string
  try {
    uri = resolveUri(ref, site.place.resource.uri)
  } catch (err) {
    throw new SchemaError(`"${keyword}": ${(err as BadUri).message}`, 'ref', { ref })
  }
  const found = site.compiler.registry.lookup(uri, site.dialect)
  if (found === undefined) {
    throw new SchemaError(
      `"${keyword}" at "${site.place.doc}" names "${ref}", which the schema does not bundle (remote references are never fetched)`,
      'ref',
      { ref, schema_location: site.place.doc },
    )
  }
  return { uri, node: site.compiler.node(found.schema, found.place) }
}

function hopTo(site: Site, keyword: string, node: Node): Hop {
  return { resource: node.place.resource, from: site.place.doc, keyword, to: node.place.doc }
}

// A reference whose target is known when it is compiled: its hop is one object, not one a call.
function follow(site: Site, keyword: string, node: Node): Check {
  const hop = hopTo(site, keyword, node)
  return (v, cx, ev) => {
    cx.hop(hop)
    const valid = node.check(v, cx, ev)
    cx.unhop()
    return valid
  }
}

// One whose target the dynamic scope picks as it is taken.
function followDynamic(site: Site, keyword: string, pick: (cx: Context) => Node): Check {
  return (v, cx, ev) => {
    const node = pick(cx)
    cx.hop(hopTo(site, keyword, node))
    const valid = node.check(v, cx, ev)
    cx.unhop()
    return valid
  }
}

const ref: KeywordCompiler = (site, value) => {
  if (typeof value !== 'string') site.invalid('$ref', 'a URI reference')
  // a target still being compiled (a reference to an enclosing schema) is the node begun: its check is
  // read when the reference is taken
  const { node } = target(site, '$ref', value as string)
  return follow(site, '$ref', node)
}

// 2020-12: to the anchor the reference names, unless the dynamic scope has an outer resource with a
// $dynamicAnchor of that name, when the reference itself lands on a $dynamicAnchor.
const dynamicRef: KeywordCompiler = (site, value) => {
  if (typeof value !== 'string') site.invalid('$dynamicRef', 'a URI reference')
  const initial = target(site, '$dynamicRef', value as string)
  const [, fragment] = splitFragment(initial.uri)
  const schema = initial.node.schema
  const dynamic =
    fragment !== undefined &&
    !fragment.startsWith('/') &&
    typeof schema === 'object' &&
    schema !== null &&
    (schema as Record<string, unknown>)['$dynamicAnchor'] === fragment
  if (!dynamic) return follow(site, '$dynamicRef', initial.node)
  const compiler = site.compiler
  return followDynamic(site, '$dynamicRef', (cx) => {
    for (const hop of cx.hops) {
      const anchored = hop.resource.dynamicAnchors.get(fragment)
      if (anchored !== undefined)
        return compiler.node(anchored, compiler.registry.placeOf(anchored, hop.resource, ''))
    }
    return initial.node
  })
}

// 2019-09: "#" resolved, then, when that resource has $recursiveAnchor: true, the outermost resource
// of the dynamic scope that has one too.
const recursiveRef: KeywordCompiler = (site, value) => {
  if (value !== '#') site.invalid('$recursiveRef', '"#"')
  const initial = target(site, '$recursiveRef', '#')
  if (!initial.node.place.resource.recursiveAnchor) return follow(site, '$recursiveRef', initial.node)
  const compiler = site.compiler
  return followDynamic(site, '$recursiveRef', (cx) => {
    for (const hop of cx.hops) {
      if (hop.resource.recursiveAnchor) {
        return compiler.node(
          hop.resource.root,
          compiler.registry.placeOf(hop.resource.root, hop.resource, ''),
        )
      }
    }
    return initial.node
  })
}

export const REF_KEYWORDS: Record<string, KeywordCompiler> = {
  $ref: ref,
  $dynamicRef: dynamicRef,
  $recursiveRef: recursiveRef,
}
