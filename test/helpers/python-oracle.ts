import { spawnSync } from 'node:child_process'
import { describe } from 'vitest'

// Debian's Python 3 and its modules: the independent implementations the toolbox families are checked
// against (zstandard, brotli, pyotp, base58, cryptography, and the standard library's base64, zlib, gzip).
// Under CI (CI=true) a missing one is a broken machine, not a reason to skip: that throws, so the run fails
// loudly (.ci/run installs them).
export const PYTHON = '/usr/bin/python3'

export function pythonUnavailable(modules: readonly string[]): string | null {
  const probe = spawnSync(PYTHON, ['-c', modules.map((m) => `import ${m}`).join('; ') || 'pass'], {
    encoding: 'utf8',
  })
  if (probe.status === 0) return null
  const reason = `${PYTHON} with ${modules.join(', ')} not found (.ci/run's apt-get line installs them)`
  if (process.env.CI === 'true') throw new Error(`CI=true but ${reason}`)
  return reason
}

// A suite that needs these Python modules: skipped, and said so, only outside CI when they are missing.
export function describePython(name: string, modules: readonly string[], body: () => void): void {
  const reason = pythonUnavailable(modules)
  if (reason) {
    process.stderr.write(`skipping "${name}": ${reason}\n`)
    describe.skip(name, body)
    return
  }
  describe(name, body)
}

// Runs a Python program with a JSON value on its standard input and returns the JSON it prints.
export function runPython<T>(program: string, input: unknown): T {
  const run = spawnSync(PYTHON, ['-c', program], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 256 * 1024 * 1024,
  })
  if (run.status !== 0) throw new Error(`python3 failed (${run.status}): ${run.stderr}`)
  return JSON.parse(run.stdout) as T
}
