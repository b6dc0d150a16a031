import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { commandsIn } from '../../../src/store/redis/commands.ts'

const ROOT = new URL('../../../', import.meta.url)
const FOLDERS = ['src/store/redis/', 'src/jobs/redis/', 'src/accounts/store/']

// One Lua registry (src/store/redis/commands.ts): every script is a file whose header gives its key count
// and names its command; they are registered by that one module, and their signatures are one augmentation.
describe('the Redis commands', () => {
  it('every script names its command and key count in its header, and is read from it', () => {
    const names: string[] = []
    for (const folder of FOLDERS) {
      const commands = commandsIn(new URL(folder, ROOT))
      const files = readdirSync(new URL(folder, ROOT)).filter((f) => f.endsWith('.lua'))
      expect(commands.length, folder).toBe(files.length)
      names.push(...commands.map((c) => c.name))
    }
    expect(new Set(names).size).toBe(names.length)
    const store = commandsIn(new URL('src/store/redis/', ROOT))
    expect(store.find((c) => c.name === 'anvilConsume')?.numberOfKeys).toBeUndefined()
    expect(store.find((c) => c.name === 'anvilKeepIdempotent')?.numberOfKeys).toBe(3)
    expect(
      commandsIn(new URL('src/jobs/redis/', ROOT)).find((c) => c.name === 'anvilJobCreate')?.numberOfKeys,
    ).toBe(8)
  })

  it('refuses a script whose header does not say its key count and name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'anvil-lua-'))
    writeFileSync(join(dir, 'nameless.lua'), '-- counts something\nreturn 1\n')
    expect(() => commandsIn(pathToFileURL(`${dir}/`))).toThrow(/nameless\.lua: the header gives no key count/)
  })

  it('are registered in one place, and typed in one augmentation', () => {
    const sources = readdirSync(new URL('src/', ROOT), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    )
    const read = (f: string) => readFileSync(new URL(`src/${f}`, ROOT), 'utf8')
    expect(sources.filter((f) => /\.defineCommand\(/.test(read(f)))).toEqual(['store/redis/commands.ts'])
    expect(sources.filter((f) => /declare module 'ioredis'/.test(read(f)))).toEqual([
      'store/redis/ioredis-augment.ts',
    ])
    expect(sources.filter((f) => /declare module 'fastify'/.test(read(f)))).toEqual([
      'http/fastify-augment.ts',
    ])
  })
})
