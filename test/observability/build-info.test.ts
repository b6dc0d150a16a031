import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { sourceCommit } from '../../src/observability/build-info.ts'

const ROOT = new URL('../../', import.meta.url).pathname

describe('the commit a process runs', () => {
  it('is ANVIL_COMMIT when set, else the checkout’s HEAD, asked of git once for the process', () => {
    expect(sourceCommit('ABCDEF1234')).toBe('abcdef1234')
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
    expect(sourceCommit(undefined)).toBe(head)
    // git out of reach now: the answer is still the commit asked for first (another runtime of the same
    // process, as each test app is, spawns no git)
    const path = process.env.PATH
    process.env.PATH = ''
    try {
      expect(sourceCommit(undefined)).toBe(head)
    } finally {
      process.env.PATH = path
    }
  })
})
