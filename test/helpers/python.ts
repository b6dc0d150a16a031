import { spawnSync } from 'node:child_process'
import { describe } from 'vitest'

// Python 3 with argon2-cffi and bcrypt (Debian: python3-argon2, python3-bcrypt), the independent
// implementation the password family is checked against. Under CI (CI=true) a missing one is a broken
// machine, not a reason to skip: that throws, so the run fails loudly.
export const PYTHON = '/usr/bin/python3'

export function pythonUnavailable(): string | null {
  const probe = spawnSync(PYTHON, ['-c', 'import argon2, bcrypt, hashlib; hashlib.scrypt'], {
    encoding: 'utf8',
  })
  if (probe.status === 0) return null
  const reason = `${PYTHON} with argon2-cffi and bcrypt not found (apt-get install python3-argon2 python3-bcrypt)`
  if (process.env.CI === 'true') throw new Error(`CI=true but ${reason}`)
  return reason
}

export function describePython(name: string, body: () => void): void {
  const reason = pythonUnavailable()
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
  })
  if (run.status !== 0) throw new Error(`python3 failed (${run.status}): ${run.stderr}`)
  return JSON.parse(run.stdout) as T
}
