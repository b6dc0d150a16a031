import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, expect } from 'vitest'

// Each test file's fork writes which file it runs, and removes the note once the file's tests and hooks
// are done (the pool ends idle forks with a signal, so the process's own exit cannot be awaited). A fork
// that dies mid-file (a signal, a native abort, V8 out of memory, process.exit) leaves its note, and
// test/setup/fork-deaths.ts names the file at the end of the run: vitest itself only says "Worker exited
// unexpectedly", without the file (one CI run of 283 files ended so).
const dir = process.env.ANVIL_FORK_NOTES
if (dir) {
  mkdirSync(dir, { recursive: true })
  const note = join(dir, String(process.pid))
  writeFileSync(note, `${expect.getState().testPath ?? 'unknown file'}\n`)
  afterAll(() => rmSync(note, { force: true }))
}
