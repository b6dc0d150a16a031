import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const execute = promisify(execFile)
const CHILD = new URL('./first-transfer-child.ts', import.meta.url).pathname

// workers/boot.mjs: a thread's first transfer (its first answer) detached a buffer, and V8 dropped every
// function it had compiled on the assumption that none ever would be (the ArrayBufferDetaching protector,
// a property cell): the warm-up's code for the diff and the byte scanners, on the first request of each
// thread. The thread now detaches one buffer before it compiles anything. Measured: none dropped; without
// that line, 31 (the diff's matchArrays, paired, offerCandidates, the scanners' sameBytes, closerOf, ...).
it("a warm thread's first answer, a transferred buffer, drops none of the code its warm-up compiled", async () => {
  const { stdout } = await execute(process.execPath, ['--trace-deopt', CHILD], {
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  })
  expect(stdout).toMatch(/^answered \d+ bytes$/m)
  const dropped = [
    ...stdout.matchAll(
      /marking dependent code \S+ <Code \w+> \(\S+ <SharedFunctionInfo ([^>]*)>\).*reason: dependent property cell changed/g,
    ),
  ].map(([, name]) => name)
  expect(dropped).toEqual([])
})
