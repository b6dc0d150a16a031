import {
  Composer,
  type CST,
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  Lexer,
  type Node,
  Parser,
  type Scalar,
  type YAMLError,
} from 'yaml'
import { keepShape } from '../../../lib/kept-shapes.ts'
import { duplicateKey, invalidInput, tooDeep, unrepresentable } from '../model/errors.ts'
import type { DataMap, DataValue } from '../model/value.ts'
import { yamlNumber } from './numbers.ts'

// YAML 1.2 (core schema) to the value model, with the `yaml` package's parser and composer and our own
// walk of the documents it composes (not its toJS): numbers keep their source text, keys their order,
// and aliases are resolved here, shared rather than copied, for size.ts to weigh before anything is
// expanded. The package's own alias bound (maxAliasCount) is not one on output size: a scalar anchor
// aliased a million times passes it, and each alias it resolves scans every node of the document.
// Its duplicate-key check is quadratic in a mapping's size, so it is off and ours (a Map) is used.

export interface YamlRead {
  // one document's value, or with `stream` the array of every document's
  value: DataValue
  // the containers that appear more than once (through aliases)
  shared: Set<object>
}

const COMPOSE_OPTIONS = {
  version: '1.2',
  schema: 'core',
  uniqueKeys: false,
  // !!binary, !!set, !!omap, !!timestamp are YAML 1.1 types, not the 1.2 core schema's: with this off
  // they are unresolved tags, read as their node's kind, as any other unknown tag is
  resolveKnownTags: false,
  merge: false,
} as const

const CYCLE = Symbol('anchor being read')

// The package's lexer, parser and composer for one text (each keeps state while it reads)
interface Readers {
  lexer: Lexer
  parser: Parser
  composer: Composer
}

const newReaders = (): Readers => ({
  lexer: new Lexer(),
  parser: new Parser(),
  composer: new Composer(COMPOSE_OPTIONS),
})

type Token = CST.Token
type CollectionItem = { key?: Token | null; value?: Token }

// The composer recurses once per nesting level (and would stop with a stack overflow somewhere past
// ~1,100 levels on a main thread): the token tree the parser built, iteratively, is measured first.
function checkDepth(token: Token, maxDepth: number): void {
  const stack: [Token, number][] = [[token, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (node.type === 'document') {
      if (node.value) stack.push([node.value, depth])
    } else if (node.type === 'block-map' || node.type === 'block-seq' || node.type === 'flow-collection') {
      if (depth + 1 > maxDepth) throw tooDeep(maxDepth)
      for (const item of node.items as CollectionItem[]) {
        if (item.key) stack.push([item.key, depth + 1])
        if (item.value) stack.push([item.value, depth + 1])
      }
    }
  }
}

function firstError(text: string, errors: readonly YAMLError[]): Error | undefined {
  const error = errors[0]
  if (!error) return undefined
  return invalidInput('yaml', text, error.pos[0], error.message.split('\n')[0]!.replace(/\.$/, ''))
}

// A key of the model is a string: a scalar key is written as its value's text (null as "null", true as
// "true", a number in JSON's syntax); a collection as a key has no such form.
function keyText(key: DataValue, path: (string | number)[]): string {
  if (typeof key === 'string') return key
  if (key === null) return 'null'
  if (typeof key === 'boolean' || typeof key === 'number') return String(key)
  if (key instanceof Map || Array.isArray(key)) {
    throw unrepresentable(undefined, path, 'key', 'a mapping key that is a collection')
  }
  return key.text
}

// The parser's tokens, as Parser.parse makes them, but with the flow collections' nesting counted on the
// lexer's output as it goes: the parser spends ~20 µs a level on deep flow nesting (half a million "["
// took 11 s), so a document past the bound is refused after maxDepth of them, not after all of them.
// Block nesting costs indentation, so it is measured on the token tree (checkDepth).
function* tokensOf(text: string, maxDepth: number, { lexer, parser }: Readers): Generator<Token> {
  let flow = 0
  for (const lexeme of lexer.lex(text)) {
    if (lexeme === '[' || lexeme === '{') {
      if (++flow > maxDepth) throw tooDeep(maxDepth)
    } else if (lexeme === ']' || lexeme === '}') flow--
    yield* parser.next(lexeme)
  }
  yield* parser.end()
}

// A scalar whose explicit core-schema tag does not fit it (!!int 1.5, !!null x): the package resolves it as
// a string and warns; YAML 1.2 makes it an error. Unknown and YAML 1.1 tags (!foo, !!binary) stay warnings:
// their node is read as its kind, as the spec lets an application do with tags it does not know.
const CORE_TAGS = /^Unresolved tag: tag:yaml\.org,2002:(?:int|float|bool|null)$/

function isCoreTagMismatch(warning: YAMLError): boolean {
  return warning.code === 'TAG_RESOLVE_FAILED' && CORE_TAGS.test(warning.message)
}

// The documents of the stream. The composer also makes a document of a bare "..." (a document end
// marker with no document before it, yaml-test-suite HWV9, QT73, M7A3), which YAML 1.2 does not: such
// documents, with no content and no "---", are dropped. And it lets a %YAML directive repeat (SF5V).
function documentsOf(text: string, maxDepth: number, readers = newReaders()): Document.Parsed[] {
  const { composer } = readers
  const docs: Document.Parsed[] = []
  const kept: boolean[] = []
  let versions = 0
  for (const token of tokensOf(text, maxDepth, readers)) {
    if (token.type === 'directive' && token.source.startsWith('%YAML')) {
      if (++versions > 1) throw invalidInput('yaml', text, token.offset, 'the %YAML directive is given twice')
    } else if (token.type === 'document') {
      versions = 0
      kept.push(token.value !== undefined || token.start.some((t) => t.type === 'doc-start'))
      checkDepth(token, maxDepth)
    }
    for (const doc of composer.next(token)) docs.push(doc)
  }
  // with no document at all, a stream of directives alone is an error the composer gives only then
  for (const doc of composer.end(kept.length === 0, text.length)) docs.push(doc)
  for (const doc of docs) {
    const error = firstError(text, doc.errors) ?? firstError(text, doc.warnings.filter(isCoreTagMismatch))
    if (error) throw error
  }
  return docs.filter((_, i) => kept[i] === true)
}

export function readYaml(text: string, stream: boolean, maxDepth: number): YamlRead {
  const docs = documentsOf(text, maxDepth)
  if (!stream && docs.length > 1) {
    throw unrepresentable(
      undefined,
      [],
      'documents',
      `a stream of ${docs.length} documents as one value (options.documents "stream" reads them as an array)`,
    )
  }
  const shared = new Set<object>()
  const values = docs.map((doc) => walkDocument(text, doc, shared))
  return { value: stream ? values : (values[0] ?? null), shared }
}

function walkDocument(text: string, doc: Document.Parsed, shared: Set<object>): DataValue {
  // anchors in document order: an alias names the last anchor of its name before it
  const anchors = new Map<string, DataValue | typeof CYCLE>()
  const path: (string | number)[] = []

  const scalar = (node: Scalar): DataValue => {
    const value = node.value
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
    if (typeof value === 'number' || typeof value === 'bigint') {
      const number = yamlNumber(node.source ?? String(value), node.tag)
      if (number === undefined) {
        const at = node.range?.[0] ?? 0
        throw invalidInput('yaml', text, at, `${JSON.stringify(node.source)} is not a ${node.tag}`)
      }
      return number
    }
    return String(value)
  }

  const walk = (node: Node | null | undefined): DataValue => {
    if (node === null || node === undefined) return null
    if (isAlias(node)) {
      const found = anchors.get(node.source)
      if (found === undefined) {
        const at = node.range?.[0] ?? 0
        throw invalidInput('yaml', text, at, `the alias *${node.source} names no anchor before it`)
      }
      if (found === CYCLE)
        throw unrepresentable(undefined, path, 'alias_cycle', 'a node that contains itself')
      if (found instanceof Map || Array.isArray(found)) shared.add(found)
      return found
    }
    const anchor = node.anchor
    if (anchor) anchors.set(anchor, CYCLE)
    let value: DataValue
    if (isScalar(node)) value = scalar(node)
    else if (isMap(node)) {
      const map: DataMap = new Map()
      for (const pair of node.items) {
        const key = keyText(walk(pair.key as Node | null), path)
        if (map.has(key)) throw duplicateKey('yaml', path, key)
        path.push(key)
        map.set(key, walk(pair.value as Node | null))
        path.pop()
      }
      value = map
    } else if (isSeq(node)) {
      const items: DataValue[] = []
      for (const item of node.items) {
        path.push(items.length)
        items.push(walk(item as Node | null))
        path.pop()
      }
      value = items
    } else value = null
    if (anchor) anchors.set(anchor, value)
    return value
  }

  return walk(doc.contents)
}

// The package's objects (its lexer, parser and composer, the tokens, the documents and their nodes) gain
// their fields as they read, so their shapes are those of a read: one small document that takes the usual
// paths, read at load with everything it made kept (src/lib/kept-shapes.ts; without it, a read after a pool
// thread's full collection compiled 35-44 functions again, each request).
const SAMPLE = `%YAML 1.2
---
# a comment
name: "anvil"
plain: text with spaces
quoted: 'single'
count: 3
ratio: 1.25
on: true
none: null
hex: 0x1F
list:
  - a
  - {k: v, n: 1}
  - [1, "two", 3.0]
  - &anchor
    deep:
      text: |
        literal block
      folded: >
        folded block
  - *anchor
tagged: !!str 12
...
---
- second document
`

const SAMPLE_DEPTH = 8 // past the sample's own nesting (5)

function keepYamlShapes(): void {
  const readers = newReaders()
  const docs = documentsOf(SAMPLE, SAMPLE_DEPTH, readers)
  const tokens = [...tokensOf(SAMPLE, SAMPLE_DEPTH, newReaders())]
  const shared = new Set<object>()
  keepShape({ readers, docs, tokens, values: docs.map((doc) => walkDocument(SAMPLE, doc, shared)) })
}
keepYamlShapes()
