import { create, type Delta, type DiffContext, type Options } from 'jsondiffpatch'
import { keepShape } from '../../../lib/kept-shapes.ts'
import { isJsonNumber, isRawNumber, numbersEqual, parseJsonExact } from '../number.ts'
import { type ArrayMatchOptions, arraysDiffFilter } from './array-filter.ts'
import { ItemHasher } from './hash.ts'
import type { Json } from './values.ts'

// Numbers kept exactly are objects to jsondiffpatch; they are compared by decimal value here, before
// its "trivial" filter would take them for objects (1.0 and 1 are equal; a change is a replacement).
function numbersDiffFilter(context: DiffContext): void {
  const { left, right } = context
  if (!isRawNumber(left) && !isRawNumber(right)) return
  const same = isJsonNumber(left) && isJsonNumber(right) && numbersEqual(left, right)
  context.setResult(same ? undefined : ([left, right] as DiffContext['result'])).exit()
}
numbersDiffFilter.filterName = 'numbers'

export interface DeltaOptions {
  // already in the key space of the documents (see keys.ts)
  arrayKey?: string
  detectMoves: boolean
}

// One differ for every diff, its filters installed once: jsondiffpatch's own code and ours keep their
// compiled form from one request to the next (a differ made per diff left compiled code calling its
// filters, dropped with them at the next full collection).
const differ = create()
differ.processor.pipes.diff.before('trivial', numbersDiffFilter)
differ.processor.pipes.diff.replace('arrays', arraysDiffFilter)
const AT_REST: Options = {}

// jsondiffpatch's contexts gain their fields as its walk goes, in an order that depends on the path, and
// are of a class it does not export: the contexts of one small diff that takes each path (changed and
// equal members, arrays with moves, removals, additions and nested changes, exact numbers) are kept, so
// each of their shapes stays (kept-shapes.ts).
function keepContextShapes(): void {
  const contexts = new Set<DiffContext>()
  const note = Object.assign((context: DiffContext) => void contexts.add(context), { filterName: 'note' })
  const pipe = differ.processor.pipes.diff
  pipe.before('collectChildren', note)
  const [left, right] = parseJsonExact(
    `[{"a": 1, "b": "x", "c": 1.50, "list": [{"id": 1, "v": 1}, {"id": 2}, {"id": 3, "v": [1, 2]}], "o": {"deep": [1, 2, 3], "same": [1]}},
      {"a": 2, "d": true, "c": 1.5, "list": [{"id": 3, "v": [2]}, {"id": 2}, {"id": 1, "v": 9}, {"id": 5}], "o": {"deep": [3, 1], "same": [1]}}]`,
  ) as Json[]
  computeDelta(left!, right!, { arrayKey: 'id', detectMoves: true })
  pipe.remove('note')
  keepShape([...contexts])
}

// The one place that decides how deltas are computed. jsondiffpatch walks the documents and diffs
// objects; arrays go to our filter (array-filter.ts), near-linear where jsondiffpatch's
// LCS fills a matrix of (n + 1) × (m + 1) cells. No textDiff option: long strings stay whole
// replacements, which RFC 6902 can express.
export function computeDelta(left: Json, right: Json, options: DeltaOptions): Delta {
  const diffOptions: ArrayMatchOptions = {
    arrayMatch: { hasher: new ItemHasher(options.arrayKey), detectMoves: options.detectMoves },
  }
  differ.options(diffOptions)
  try {
    return differ.diff(left, right)
  } finally {
    differ.options(AT_REST) // the hasher's cache holds the documents' values
  }
}
keepContextShapes()
