import { spawn } from 'node:child_process'
import { setPriority } from 'node:os'

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
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] })
    child.stdin.end(JSON.stringify(options))
    if (nice && child.pid) setPriority(child.pid, nice)
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.once('error', reject)
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`stream child exited with ${code}`))
      resolve(JSON.parse(out) as StreamLoadResult)
    })
  })
}
