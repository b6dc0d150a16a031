import { Document, type Node, Pair, Scalar, type ScalarTag, type Tags, YAMLMap, YAMLSeq } from 'yaml'
import { loneSurrogateAt } from '../../encoding.ts'
import { outputTooLarge, unrepresentable } from '../model/errors.ts'
import { DataDate, DataNumber, type DataValue, isInteger, numberText, SpecialFloat } from '../model/value.ts'

// The value model to YAML 1.2 with the `yaml` package's writer, in block style. Everything written is
// read back the same by a YAML 1.2 (core schema) reader and by a YAML 1.1 one (PyYAML, the Norway
// problem): the writer's `compat: yaml-1.1` quotes strings that either would read as something else
// (no, on, 1_000, 2001-12-14, "1e5"), and floats are written with a dot and a signed exponent (1e5 as
// 1.0e+5), which YAML 1.1 needs to see a float. Numbers are their exact text; dates their RFC 3339 text,
// as quoted strings (the core schema has no timestamp type); aliases are expanded.

// The writer picks a tag for a scalar by `identify`; among several, by those with a `test`, the first in
// the list: this `test` never matches (these tags are for writing only) but puts them before the core
// schema's number tags, which would print 12345678901234567890 from a double.
const NEVER = /^(?!)/

// A float's text as both YAML 1.2 and YAML 1.1 read it: a dot in the mantissa, a sign on the exponent.
export function yamlFloatText(text: string): string {
  const e = text.search(/[eE]/)
  const mantissa = e < 0 ? text : text.slice(0, e)
  const dotted = mantissa.includes('.') ? mantissa : `${mantissa}.0`
  if (e < 0) return dotted
  const exponent = text.slice(e + 1)
  return `${dotted}${text[e]}${exponent[0] === '-' || exponent[0] === '+' ? '' : '+'}${exponent}`
}

const numberTag: ScalarTag = {
  identify: (value) => typeof value === 'number' || value instanceof DataNumber,
  default: true,
  tag: 'tag:yaml.org,2002:float',
  test: NEVER,
  resolve: (text) => text,
  stringify: ({ value }) => {
    const number = value as number | DataNumber
    return isInteger(number) ? numberText(number) : yamlFloatText(numberText(number))
  },
}

const specialFloatTag: ScalarTag = {
  identify: (value) => value instanceof SpecialFloat,
  default: true,
  tag: 'tag:yaml.org,2002:float',
  test: NEVER,
  resolve: (text) => text,
  stringify: ({ value }) => ({ inf: '.inf', '-inf': '-.inf', nan: '.nan' })[(value as SpecialFloat).text],
}

const customTags = (tags: Tags): Tags => [numberTag, specialFloatTag, ...tags]

export interface YamlWriteOptions {
  indent: number
  stream: boolean
  maxBytes: number
}

// What `compat` leaves plain that a YAML 1.1 reader (PyYAML) reads otherwise: a tab inside a plain
// scalar (YAML 1.2 allows it), and YAML 1.1's "value" (=) and merge (<<) types.
function needsQuotesFor11(text: string): boolean {
  return text.includes('\t') || text === '=' || text === '<<'
}

function quotedScalar(text: string): Scalar {
  const scalar = new Scalar(text)
  scalar.type = Scalar.QUOTE_DOUBLE
  return scalar
}

function nodeOf(value: DataValue, path: (string | number)[]): Node {
  if (value instanceof Map) {
    const map = new YAMLMap()
    for (const [key, item] of value) {
      if (loneSurrogateAt(key) >= 0) throw unrepresentable('yaml', path, 'lone_surrogate', 'a lone surrogate')
      path.push(key)
      map.items.push(
        new Pair(needsQuotesFor11(key) ? quotedScalar(key) : new Scalar(key), nodeOf(item, path)),
      )
      path.pop()
    }
    return map
  }
  if (Array.isArray(value)) {
    const seq = new YAMLSeq()
    for (let i = 0; i < value.length; i++) {
      path.push(i)
      seq.items.push(nodeOf(value[i]!, path))
      path.pop()
    }
    return seq
  }
  if (value instanceof DataDate) return new Scalar(value.text)
  if (typeof value === 'string') {
    if (loneSurrogateAt(value) >= 0) throw unrepresentable('yaml', path, 'lone_surrogate', 'a lone surrogate')
    if (needsQuotesFor11(value)) return quotedScalar(value)
  }
  return new Scalar(value)
}

function documentText(value: DataValue, indent: number, path: (string | number)[]): string {
  const doc = new Document(null, { version: '1.2', compat: 'yaml-1.1', customTags })
  const node = nodeOf(value, path)
  // a multi-line string as the whole document: the package writes a block scalar that needs an
  // indentation indicator (" foo\nbar") at the top level as one neither it nor PyYAML reads back
  // (yaml-test-suite 6WPF written back), so it is written double-quoted
  if (typeof value === 'string' && value.includes('\n')) (node as Scalar).type = Scalar.QUOTE_DOUBLE
  doc.contents = node
  return doc.toString({ indent, lineWidth: 0 })
}

export function writeYaml(root: DataValue, options: YamlWriteOptions): string {
  let text: string
  if (!options.stream) text = documentText(root, options.indent, [])
  else {
    if (!Array.isArray(root)) {
      throw unrepresentable('yaml', [], 'root', 'anything but an array as a stream of documents')
    }
    text = root.map((doc, i) => `---\n${documentText(doc, options.indent, [i])}`).join('')
  }
  if (Buffer.byteLength(text) > options.maxBytes) throw outputTooLarge(options.maxBytes)
  return text
}
