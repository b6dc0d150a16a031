import { lstat, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeAtomic } from '../../src/lib/atomic-file.ts'

// What the gateway writes in DATA_DIR (admin-token.json, admin-listener.json, tls/, jobs/, accounts.json,
// first-start.txt) goes through writeAtomic: a symbolic link already at the path is replaced, never written
// through, and the file is 0600 from its creation.
describe('writeAtomic never writes through a link', () => {
  let dir: string
  let victim: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'anvil-atomic-'))
    victim = join(dir, 'victim')
    await writeFile(victim, 'do not touch\n', { mode: 0o644 })
  })
  afterEach(() => rm(dir, { recursive: true, force: true }))

  it('a link at the path is replaced by the new file (0600); its target keeps its bytes and mode', async () => {
    const path = join(dir, 'admin-token.json')
    await symlink(victim, path)
    await writeAtomic(path, '{"token":"adm_new"}')
    expect((await lstat(path)).isSymbolicLink()).toBe(false)
    expect((await stat(path)).mode & 0o777).toBe(0o600)
    expect(await readFile(path, 'utf8')).toBe('{"token":"adm_new"}')
    expect(await readFile(victim, 'utf8')).toBe('do not touch\n')
    expect((await stat(victim)).mode & 0o777).toBe(0o644)
    // no temporary file left behind
    expect((await readdir(dir)).sort()).toEqual(['admin-token.json', 'victim'])
  })

  it('a new folder on the way is made 0700', async () => {
    await writeAtomic(join(dir, 'tls', 'key.pem'), 'k')
    expect((await stat(join(dir, 'tls'))).mode & 0o777).toBe(0o700)
  })
})
