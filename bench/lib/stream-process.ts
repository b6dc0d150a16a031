import { runChild } from './child.ts'

const SCRIPT = new URL('./stream-child.ts', import.meta.url).pathname

export interface StreamLoadResult {
  uploads: number
  failures: number
  mib: number
}

// Runs bench/lib/stream-child.ts (raw-body uploads in lanes) in a child process at `nice`, as
// loadInProcess does for a request flood.
export function streamInProcess(
  options: { url: string; key: string; bytes: number; lanes: number; seconds: number },
  nice = 0,
): Promise<StreamLoadResult> {
  return runChild<StreamLoadResult>(SCRIPT, options, nice)
}
