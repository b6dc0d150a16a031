import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const execute = promisify(execFile)
const CHILD = new URL('./kept-shapes-child.ts', import.meta.url).pathname

// The functions whose optimized code V8 dropped DROPS times or more over the child's fourteen runs because a
// full collection freed an object the code embeds ("embedded weak objects cleared", --trace-deopt): lost at
// each collection, so by every request of a steady stream. A function is told by its SharedFunctionInfo's
// address, not its name (the yaml package has several named resolve). Measured: once or twice at most, in
// 22 runs of the child, 12 of them beside three busy processes; that is a collection, at a run that depends
// on the load (0-10), freeing objects of the first runs (module loading's among them: realpathSync,
// getOptions; then composeNode, readDelta and their kind), a cost paid once. With keepShape a no-op, 14
// functions (diff) and 32 (YAML) are dropped four times or more, most at every collection.
// The runs are not told apart: V8 prints a trace line from whichever thread cleared the objects, so a line
// and the child's own output interleave (a marker once landed inside one), and counting what was compiled
// again in the last run instead flaked in CI (resolveFlowCollection, dropped by that one-time collection,
// reached its top tier again only in the last run under load).
const DROPS = 4

async function droppedAtEachCollection(which: 'diff' | 'yaml'): Promise<string[]> {
  const { stdout } = await execute(process.execPath, ['--trace-deopt', CHILD, which], {
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  })
  expect(stdout).toMatch(/^ran 14$/m)
  const times = new Map<string, { name: string; n: number }>()
  for (const [, sfi, name] of stdout.matchAll(
    /\((\w+) <SharedFunctionInfo ([^>]*)>\)[^\n]*reason: embedded weak objects cleared/g,
  )) {
    const seen = times.get(sfi!) ?? { name: name!, n: 0 }
    seen.n++
    times.set(sfi!, seen)
  }
  return [...times.values()].filter(({ n }) => n >= DROPS).map(({ name, n }) => `${name} (${n}×)`)
}

// src/lib/kept-shapes.ts: a pool thread's full collection after a large task freed the hidden classes of the
// objects a heavy op makes once none lived, and with them the code V8 had optimized for them; the next
// request ran it unoptimized and compiled it again.

// json/diff: the diff's own classes and jsondiffpatch's contexts (src/ops/json/diff/delta.ts
// keepContextShapes). Without the kept contexts alone, jsondiffpatch's DiffContext (7×),
// objectsDiffFilter and collectChildrenDiffFilter (5×) among others.
it("a diff's optimized code outlives the full collection after the diff before it", async () => {
  expect(await droppedAtEachCollection('diff')).toEqual([])
})

// data/convert from YAML: the yaml package's lexer, parser, composer, tokens and nodes
// (src/ops/data/yaml/read.ts keepYamlShapes) and the value model's classes. Without keepYamlShapes alone,
// the package's functions (isAlias and blockMap 14×, isMap 9×, ...).
it("a YAML read's optimized code outlives the full collection after the read before it", async () => {
  expect(await droppedAtEachCollection('yaml')).toEqual([])
})
