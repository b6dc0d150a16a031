import { spawn } from 'node:child_process'
import { setPriority } from 'node:os'
import type { LoadOptions, LoadResult } from './load.ts'

const SCRIPT = new URL('./load-child.ts', import.meta.url).pathname

// Runs `load(options)` in a child process, at `nice` (Linux) below the bench: the flood's clients stand in
// for machines elsewhere, so they should not take the CPU the server under test and the probe need.
export function loadInProcess(options: LoadOptions, nice = 0): Promise<LoadResult> {
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
      if (code !== 0) return reject(new Error(`load child exited with ${code}`))
      resolve(JSON.parse(out) as LoadResult)
    })
  })
}
