import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { getPriority, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runChild } from '../../bench/lib/child.ts'

// The one runner the bench's children (the probe, the flood, the streams) go through
describe('runChild (bench/lib/child.ts)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'anvil-child-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  function script(name: string, source: string): string {
    const path = join(dir, name)
    writeFileSync(path, source)
    return path
  }
  // the child answers its input, its pid's niceness beside it
  const echo = script(
    'echo.mjs',
    `import { getPriority } from 'node:os'
let input = ''
process.stdin.on('data', (c) => { input += c })
process.stdin.on('end', () => {
  setTimeout(() => process.stdout.write(JSON.stringify({ input: JSON.parse(input), nice: getPriority() })), 50)
})`,
  )

  it('gives the input as JSON on stdin and answers the JSON the child writes, at the nice asked', async () => {
    const base = getPriority()
    // setPriority is absolute: the flood at 5 whatever the bench runs at
    expect(await runChild(echo, { a: [1, 'two'] })).toEqual({ input: { a: [1, 'two'] }, nice: base })
    expect(await runChild(echo, { b: true }, 5)).toEqual({ input: { b: true }, nice: 5 })
  })

  it('rejects when the child exits with a code other than 0, naming the script', async () => {
    const fails = script('fails.mjs', `process.stdout.write('{}'); process.exit(3)`)
    await expect(runChild(fails, {})).rejects.toThrow(/fails\.mjs exited with 3/)
  })
})
