// Child process for kept-shapes.test.ts, run with --trace-deopt (its own heap and flags): fourteen runs of a
// heavy op on a medium input, each parsed from its text as a request's body is, each followed by the full
// collection a pool thread runs after a large task (workers/memory.ts), with nothing of the run left alive.
// It prints "ran 14" once done; the test reads which optimized code V8 dropped, and how often.
//   diff: json/diff of two 20k-item lists (array_key, output "both")
//   yaml: data/convert to JSON of 256 KiB of the guard's YAML document (bench/data-convert.ts yamlDocument)
import { yamlDocument } from '../../bench/data-convert.ts'
import { collector } from '../../src/lib/gc.ts'
import { convertData, defaultBounds } from '../../src/ops/data/convert.ts'
import { type JsonDiffInput, jsonDiff } from '../../src/ops/json/diff/diff.ts'
import { parseJsonExact } from '../../src/ops/json/number.ts'
import { editedList } from './json/diff/large-helpers.ts'

const ROUNDS = 14

function diffText(): string {
  const { left, right } = editedList(20_000, 7)
  return JSON.stringify({ left: { items: left }, right: { items: right }, array_key: 'id', output: 'both' })
}

const runs: Record<string, () => () => void> = {
  diff: () => {
    const text = diffText()
    return () => {
      if (jsonDiff(parseJsonExact(text) as JsonDiffInput).equal) throw new Error('the lists differ')
    }
  },
  yaml: () => {
    const input = yamlDocument(256 * 1024)
    return () => {
      const { output } = convertData({ input, from: 'yaml', to: 'json' }, defaultBounds(input.length))
      if (!output.startsWith('[')) throw new Error('a YAML sequence is a JSON array')
    }
  },
}

const run = runs[process.argv[2]!]!()
for (let round = 0; round < ROUNDS; round++) {
  run()
  collector()({ type: 'major', execution: 'sync', flavor: 'regular' })
}
process.stdout.write(`ran ${ROUNDS}\n`)
