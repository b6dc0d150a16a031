import { execFile } from 'node:child_process'
import { rm, writeFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'

const ROOT = new URL('../..', import.meta.url).pathname
const VITEST = `${ROOT}node_modules/vitest/vitest.mjs`

// Two files of the shared-process project, run by vitest with the project's own configuration
// (vitest.config.ts): one leaves a listening server and an environment variable behind, one leaves
// nothing. Only the first may fail, and with the check's words: this fails when the check
// (test/setup/leaks.ts) is no longer a setup file of that project, or when it fails every file.
// The two are written into test/ for the run (the project's include is test/**/*.test.ts) and removed;
// only a run with LEAK_CHECK_PLANTED set collects them (vitest.config.ts), so one left behind is inert,
// and there the check waits 500 ms instead of 10 s.
const LEAKY = `import { createServer } from 'node:net'
import { it } from 'vitest'
it('leaves a server and a variable', async () => {
  await new Promise((r) => createServer().listen(0, '127.0.0.1', () => r(undefined)))
  process.env.ZZ_PLANTED = '1'
})
`
const CLEAN = `import { createServer } from 'node:net'
import { it } from 'vitest'
it('closes what it opens', async () => {
  const server = createServer()
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)))
  await new Promise((r) => server.close(() => r(undefined)))
})
`

describe('the shared process leak check', () => {
  it('fails the file that leaves a server and an environment change, and passes the one that does not', async () => {
    const leaky = `test/setup/zz-planted-leak-${process.pid}.test.ts`
    const clean = `test/setup/zz-planted-clean-${process.pid}.test.ts`
    await Promise.all([writeFile(ROOT + leaky, LEAKY), writeFile(ROOT + clean, CLEAN)])
    try {
      const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
        execFile(
          process.execPath,
          [VITEST, 'run', '--project', 'shared-process', '--reporter', 'verbose', leaky, clean],
          {
            cwd: ROOT,
            env: {
              ...process.env,
              NO_COLOR: '1',
              FORCE_COLOR: '0',
              LEAK_CHECK_PLANTED: '1',
            },
            timeout: 60_000,
          },
          (error, stdout, stderr) =>
            resolve({ code: error ? ((error.code as number | null) ?? null) : 0, out: stdout + stderr }),
        )
      })
      expect(run.code, run.out).toBe(1)
      expect(run.out).toMatch(
        /this file left behind what the files after it in the shared process would meet: 1 more TCPServerWrap; process\.env changed: ZZ_PLANTED/,
      )
      expect(run.out).toMatch(new RegExp(`FAIL .*${leaky.replace(/\./g, '\\.')}`))
      expect(run.out).not.toMatch(new RegExp(`FAIL .*${clean.replace(/\./g, '\\.')}`))
      expect(run.out).toMatch(/Test Files {2}1 failed \| 1 passed \(2\)/)
    } finally {
      await Promise.all([rm(ROOT + leaky, { force: true }), rm(ROOT + clean, { force: true })])
    }
  }, 90_000)
})
