import { probe } from './probe.ts'

// `node bench/lib/probe-child.ts < options.json`: one probe in its own process (ProbeOptions as JSON on
// stdin), its result printed as JSON on stdout. A probe in a test's process (vitest's, shared by every file
// before it) times that process's own collections too: tens of ms on a heap the earlier files grew.
let input = ''
for await (const chunk of process.stdin) input += chunk
const result = await probe(JSON.parse(input))
process.stdout.write(`${JSON.stringify(result)}\n`)
