import { runChild } from './child.ts'
import type { LoadOptions, LoadResult } from './load.ts'

const SCRIPT = new URL('./load-child.ts', import.meta.url).pathname

// Runs `load(options)` in a child process, at `nice` (Linux) below the bench: the flood's clients stand in
// for machines elsewhere, so they should not take the CPU the server under test and the probe need.
export function loadInProcess(options: LoadOptions, nice = 0): Promise<LoadResult> {
  return runChild<LoadResult>(SCRIPT, options, nice)
}
