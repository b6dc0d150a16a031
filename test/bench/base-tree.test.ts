import { execFileSync } from 'node:child_process'
import { lstat, readFile, readlink, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { prepareBaseTree, startEntry } from '../../bench/lib/base-tree.ts'
import { startGateway } from '../../bench/lib/processes.ts'

const ROOT = new URL('../../', import.meta.url).pathname
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim()

// The tracing-cost bench's reference (BENCH_BASE_REF): another commit's tree extracted from git for the
// run, its gateway started beside this tree's, then removed. The bench itself is not run here; this is
// the path it takes to get its reference gateway.
describe('the bench base tree (bench/lib/base-tree.ts)', () => {
  it('finds the entry of `npm start` in a package.json start command, now and in older layouts', () => {
    // this tree's own, with its environment assignment before `node`
    const pkg = JSON.parse(
      execFileSync('git', ['show', 'HEAD:package.json'], { cwd: ROOT, encoding: 'utf8' }),
    )
    expect(pkg.scripts.start).toMatch(/^MALLOC_MMAP_THRESHOLD_=\S+ GLIBC_TUNABLES=\S+ node /)
    expect(startEntry(pkg.scripts.start)).toBe('src/main/gateway.ts')
    expect(startEntry('node src/server.ts')).toBe('src/server.ts')
    expect(startEntry('node --max-old-space-size=512 src/main/gateway.ts')).toBe('src/main/gateway.ts')
    expect(startEntry('tsx watch src/x.ts')).toBeUndefined()
    expect(startEntry(undefined)).toBeUndefined()
  })

  it('refuses a ref that names no commit, before making anything', async () => {
    await expect(prepareBaseTree('no-such-ref-for-the-bench')).rejects.toThrow(
      /BENCH_BASE_REF=no-such-ref-for-the-bench: no such commit/,
    )
    // an option-looking ref is a ref, not an option to git
    await expect(prepareBaseTree('--output=/tmp/x')).rejects.toThrow(/no such commit/)
  })

  it('extracts a commit beside this tree, runs its gateway from there, and removes it without a trace in git', async () => {
    const worktrees = git('worktree', 'list', '--porcelain')
    const base = await prepareBaseTree('HEAD~1')
    try {
      expect(base.commit).toBe(git('rev-parse', 'HEAD~1'))
      // the commit's own files, not this checkout's
      expect(await readFile(join(base.dir, 'package.json'), 'utf8')).toBe(
        `${git('show', 'HEAD~1:package.json')}\n`,
      )
      expect(base.gateway).toBe(join(base.dir, 'src/main/gateway.ts'))
      // this tree's packages, shared
      expect((await lstat(join(base.dir, 'node_modules'))).isSymbolicLink()).toBe(true)
      expect(await readlink(join(base.dir, 'node_modules'))).toBe(join(ROOT, 'node_modules'))
      // read-only on the repository: no worktree registered
      expect(git('worktree', 'list', '--porcelain')).toBe(worktrees)

      // its gateway boots and answers, running in its own directory
      const gateway = await startGateway({ LOG_LEVEL: 'warn', POOL_WARM: 'false' }, base)
      try {
        expect(await readlink(`/proc/${gateway.child.pid}/cwd`)).toBe(base.dir)
        const r = await fetch(`${gateway.adminUrl}/metrics`)
        expect(r.status).toBe(200)
        // read to its end: an unread body keeps fetch's socket open after the gateway has gone
        expect(await r.text()).toContain('# HELP')
      } finally {
        await gateway.stop()
      }
    } finally {
      await base.remove()
    }
    await expect(stat(base.dir)).rejects.toThrow(/ENOENT/)
  }, 90_000)
})
