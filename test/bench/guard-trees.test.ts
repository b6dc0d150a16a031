import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { focus, type GuardGateway, startTreeGateway } from '../../bench/lib/guard-trees.ts'

// The latency guard's process plumbing (bench/lib/guard-trees.ts): a base that cannot start fails with its
// name; the tree not measured is frozen.

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f()
})

// 'R'unning, 'S'leeping, 'T' stopped…: the state letter of /proc/<pid>/stat
async function state(pid: number): Promise<string> {
  return (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ')[0]!
}

function idler(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      }),
  )
  return child
}

describe("the guard's trees (bench/lib/guard-trees.ts)", () => {
  it("fails with the tree and its commit named when a base tree's gateway does not start", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'anvil-guard-test-'))
    cleanup.push(() => rm(dir, { recursive: true, force: true }))
    await mkdir(join(dir, 'src/main'), { recursive: true })
    await writeFile(join(dir, 'src/main/gateway.ts'), "throw new Error('this base cannot start')\n")
    const tree = {
      name: 'base' as const,
      label: 'abc123def456',
      tree: { gateway: join(dir, 'src/main/gateway.ts'), dir },
    }
    await expect(startTreeGateway(tree, { LOG_LEVEL: 'warn' })).rejects.toThrow(
      /^the base tree's gateway \(abc123def456\) did not start: .*exited with 1:[\s\S]*this base cannot start/,
    )
  })

  it('freezes every gateway but the one measured, and lets it run again on its turn', async () => {
    const [a, b] = [idler(), idler()]
    const gateways = [a, b].map((child) => ({ child }) as unknown as GuardGateway)
    const settle = () => new Promise((r) => setTimeout(r, 100))
    focus([gateways[0]!], gateways)
    await settle()
    expect(await state(b.pid!)).toBe('T')
    expect(await state(a.pid!)).not.toBe('T')
    focus([gateways[1]!], gateways)
    await settle()
    expect(await state(a.pid!)).toBe('T')
    expect(await state(b.pid!)).not.toBe('T')
  })
})
