import { spawn } from 'node:child_process'
import { setPriority } from 'node:os'

// Runs a bench child script in a process of its own: `input` as JSON on its stdin, its result as JSON on its
// stdout, a non-zero exit an error. `nice` (Linux) puts it below the bench, for a flood whose clients stand
// in for machines elsewhere and should not take the CPU the server under test and the probe need.
export function runChild<T>(script: string, input: unknown, nice = 0): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'inherit'] })
    child.stdin.end(JSON.stringify(input))
    if (nice && child.pid) setPriority(child.pid, nice)
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.once('error', reject)
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${script} exited with ${code}`))
      resolve(JSON.parse(out) as T)
    })
  })
}
