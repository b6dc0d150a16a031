import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// Global setup: a folder where every fork notes its test file (test/setup/fork-record.ts); at the end of
// the run a note still there is a fork that died without exiting, and the file it ran is printed last,
// where a CI log's tail shows it.
export function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'anvil-forks-'))
  process.env.ANVIL_FORK_NOTES = dir
  return () => {
    for (const pid of readdirSync(dir)) {
      const file = readFileSync(join(dir, pid), 'utf8').trim()
      console.error(`\nA test fork (pid ${pid}) died without exiting while it ran ${file}\n`)
    }
    rmSync(dir, { recursive: true, force: true })
  }
}
