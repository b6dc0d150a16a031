import { outputTooLarge, tooDeep } from './model/errors.ts'
import { DataDate, DataNumber, type DataValue, SpecialFloat } from './model/value.ts'
import type { ConvertBounds } from './types.ts'

// What a document will cost once its shared containers (YAML aliases) are expanded, computed without
// expanding them: each shared container is weighed once and its weight reused wherever it appears, so a
// "billion laughs" document is weighed in time linear in its text and refused before anything is written.
// The weight is an estimate of the output's size, not a bound (escapes may lengthen strings): writers of
// our own also stop at the output cap as they write; this pass is what stands before the YAML library's
// writer, which does not.

interface Weight {
  // bytes of the values and keys, with punctuation, at no indentation
  text: number
  // lines when every value and member is on a line of its own
  lines: number
  // the sum over those lines of how many levels below this value each is
  indent: number
  // how many containers deep it goes (a scalar is 0)
  height: number
}

function scalarText(value: DataValue): number {
  if (typeof value === 'string') return value.length + 2
  if (typeof value === 'number') return String(value).length
  if (value instanceof DataNumber || value instanceof SpecialFloat || value instanceof DataDate) {
    return value.text.length + 2
  }
  return 5
}

// `shared` holds the containers that appear more than once: only those are remembered. Recursion is
// bounded by the readers' depth bound (an unexpanded document is never deeper than maxDepth).
function weigher(shared: ReadonlySet<object>): (value: DataValue) => Weight {
  const known = new Map<object, Weight>()
  const weigh = (value: DataValue): Weight => {
    if (!(value instanceof Map) && !Array.isArray(value)) {
      return { text: scalarText(value), lines: 1, indent: 0, height: 0 }
    }
    if (shared.size > 0 && shared.has(value)) {
      const seen = known.get(value)
      if (seen) return seen
    }
    const total: Weight = { text: 2, lines: 1, indent: 0, height: 1 }
    const add = (child: Weight, extra: number) => {
      total.text += child.text + extra
      total.lines += child.lines
      total.indent += child.indent + child.lines
      if (child.height + 1 > total.height) total.height = child.height + 1
    }
    if (value instanceof Map) for (const [key, item] of value) add(weigh(item), key.length + 4)
    else for (const item of value) add(weigh(item), 2)
    if (shared.size > 0 && shared.has(value)) known.set(value, total)
    return total
  }
  return weigh
}

// Refuses a document whose expansion nests deeper than maxDepth, or whose output, at `indentWidth`
// bytes a level, would pass maxOutputBytes.
export function checkExpansion(
  root: DataValue,
  shared: ReadonlySet<object>,
  bounds: ConvertBounds,
  indentWidth: number,
): void {
  const weight = weigher(shared)(root)
  if (weight.height > bounds.maxDepth) throw tooDeep(bounds.maxDepth)
  if (weight.text + weight.indent * indentWidth > bounds.maxOutputBytes) {
    throw outputTooLarge(bounds.maxOutputBytes)
  }
}
