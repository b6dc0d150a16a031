import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const execute = promisify(execFile)
const CHILD = new URL('./kept-shapes-child.ts', import.meta.url).pathname

// The functions V8 optimized in the last of the child's fourteen runs that it had optimized to the same tier
// in an earlier one: compiled again. "name (tier)", with " OSR" for code compiled on the stack, inside a
// loop. A function is told by its SharedFunctionInfo's address, not its name (the yaml package has several
// named resolve), and one optimized for the first time late (a busy machine compiles later) is not counted.
async function compiledAgain(which: 'diff' | 'yaml'): Promise<string[]> {
  const { stdout } = await execute(process.execPath, ['--trace-opt', CHILD, which], {
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  })
  const runs = stdout.split(/^--- run \d+$/m).slice(1)
  const optimized = (run: string) =>
    [
      ...run.matchAll(
        /completed optimizing \S+ <JSFunction (\S+) \(sfi = (\w+)\)> \(target (\w+)\)( OSR)?\]/g,
      ),
    ].map(([, name, sfi, tier, osr]) => ({
      key: `${sfi} ${tier}${osr ?? ''}`,
      name: `${name} (${tier})${osr ?? ''}`,
    }))
  const before = new Set(runs.slice(0, -1).flatMap((run) => optimized(run).map(({ key }) => key)))
  return optimized(runs.at(-1)!)
    .filter(({ key }) => before.has(key))
    .map(({ name }) => name)
}

// src/lib/kept-shapes.ts: a pool thread's full collection after a large task freed the hidden classes of the
// objects a heavy op makes once none lived, and with them the code V8 had optimized for them; the next
// request ran it unoptimized and compiled it again. What is left is a loop run once a request, compiled on
// the stack (its code is cached weakly), and closures made per request.

// json/diff: the diff's own classes and jsondiffpatch's contexts (src/ops/json/diff/delta.ts
// keepContextShapes). Measured: nothing but placeExactNumbers' loop; with keepShape a no-op, 11 functions;
// without the kept contexts alone, jsondiffpatch's Processor.process as well (3 runs of 3).
it("a diff's optimized code outlives the full collection after the diff before it", async () => {
  const again = await compiledAgain('diff')
  expect(again.filter((name) => !/^placeExactNumbers \(\w+\) OSR$/.test(name))).toEqual([])
})

// data/convert from YAML: the yaml package's lexer, parser, composer, tokens and nodes
// (src/ops/data/yaml/read.ts keepYamlShapes) and the value model's classes. Measured: at most the loops and
// closures below; with keepShape a no-op, 35 functions of the package and ours (2 runs of 2); without
// keepYamlShapes alone, 33-34.
it("a YAML read's optimized code outlives the full collection after the read before it", async () => {
  const again = await compiledAgain('yaml')
  const expected = ['tokensOf', 'checkDepth', 'walk', 'scalar', 'write']
  expect(again.filter((name) => !expected.includes(name.slice(0, name.indexOf(' ('))))).toEqual([])
})
