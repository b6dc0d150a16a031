import { spawn, spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

// .ci/crash-report: what CI's log shows of a test process that died of a signal (.ci/run calls it when
// `npm test` fails). gcore makes the core dump here (a running Node, not a crashed one: the kernel's core
// pattern is the machine's, which a test does not change); .ci/run installs gdb, which brings gcore.
const REPORT = new URL('../../.ci/crash-report', import.meta.url).pathname
const gdb = spawnSync('sh', ['-c', 'command -v gdb && command -v gcore']).status === 0
if (!gdb && process.env.CI === 'true') throw new Error('gdb is missing: CI must install it (see .ci/run)')

describe.skipIf(!gdb)('.ci/crash-report', () => {
  let dir: string | undefined
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('prints each core dump with the program it came from and the backtrace of its thread', async () => {
    dir = await mkdtemp(join(tmpdir(), 'anvil-cores-'))
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
    try {
      await new Promise((resolve) => setTimeout(resolve, 300))
      const dumped = spawnSync('gcore', ['-o', join(dir, 'core'), String(child.pid)], { encoding: 'utf8' })
      expect(dumped.status, dumped.stderr).toBe(0)
    } finally {
      child.kill('SIGKILL')
    }
    // a wrong fallback: the program must be the one the core names
    const report = spawnSync(REPORT, [dir, '/bin/false'], { encoding: 'utf8' })
    expect(report.status).toBe(0)
    expect(report.stdout).toContain(`crash-report: ${join(dir, `core.${child.pid}`)}`)
    expect(report.stdout).toContain(`, ${process.execPath}\n`)
    // Node's main thread waits in libuv's loop: its frames, symbolized
    expect(report.stdout).toMatch(/#0 /)
    expect(report.stdout).toMatch(/uv_run|uv__io_poll|epoll_wait/)
  }, 60_000)

  it('says so when there is no core dump, and exits 0', async () => {
    dir = await mkdtemp(join(tmpdir(), 'anvil-cores-'))
    const report = spawnSync(REPORT, [dir, process.execPath], { encoding: 'utf8' })
    expect(report.status).toBe(0)
    expect(report.stdout).toContain(`crash-report: no core dump in ${dir}`)
  })
})
