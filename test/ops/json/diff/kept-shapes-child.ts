// Child process for kept-shapes.test.ts, run with --trace-opt (its own heap and flags): fourteen diffs of two
// 20k-item lists, each parsed from its text as a request's body is, each followed by the full collection a
// pool thread runs after a large task (workers/memory.ts), with nothing of the diff left alive. Before the
// last diff it prints a marker line: the test counts the functions V8 optimized after it.
import { collector } from '../../../../src/lib/gc.ts'
import { type JsonDiffInput, jsonDiff } from '../../../../src/ops/json/diff/diff.ts'
import { parseJsonExact } from '../../../../src/ops/json/number.ts'
import { editedList } from './large-helpers.ts'

const ROUNDS = 14

function body(): string {
  const { left, right } = editedList(20_000, 7)
  return JSON.stringify({ left: { items: left }, right: { items: right }, array_key: 'id', output: 'both' })
}

const text = body()
for (let round = 0; round < ROUNDS; round++) {
  if (round === ROUNDS - 1) process.stdout.write('--- last diff\n')
  const result = jsonDiff(parseJsonExact(text) as JsonDiffInput)
  if (result.equal) throw new Error('the lists differ')
  collector()({ type: 'major', execution: 'sync', flavor: 'regular' })
}
