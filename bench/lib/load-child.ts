import { load } from './load.ts'

// `node bench/lib/load-child.ts < options.json`: one autocannon run in its own process (LoadOptions as JSON
// on stdin, since a body can exceed an argument's size limit), its result printed as JSON on stdout. A second load generator in the bench's own process would share the
// probe's event loop, and the probe would measure its own client's stalls.
let input = ''
for await (const chunk of process.stdin) input += chunk
const options = JSON.parse(input)
const result = await load(options)
process.stdout.write(`${JSON.stringify(result)}\n`)
