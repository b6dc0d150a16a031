import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { FAMILIES } from '../../src/limits/families.ts'
import { CATALOG, checkInTheirFamilies } from '../../src/ops/catalog.ts'
import type { AnyOp } from '../../src/ops/define.ts'
import { familyNames } from '../../src/ops/family-names.ts'

const ROOT = new URL('../../', import.meta.url).pathname
const op = (name: string, family: string) => ({ name, family }) as AnyOp
const at = (path: string) => new URL(`../../src/ops/${path}`, import.meta.url).href

describe('the families, named without loading an op', () => {
  it("are the catalog's: its ops' families, in its order; a key's families add jobs", () => {
    expect(familyNames()).toEqual([...new Set(CATALOG.ops.map((o) => o.family))])
    expect(familyNames()).toEqual(CATALOG.families.map((f) => f.name))
    expect(FAMILIES).toEqual([...familyNames(), 'jobs'])
  })

  it('hold because the catalog refuses an op outside its family directory and a family with no op', () => {
    const root = new URL('../../src/ops/', import.meta.url)
    const hashOp = op('hash', 'hash')
    expect(() => checkInTheirFamilies([hashOp], [at('hash/hash.op.ts')], ['hash'], root)).not.toThrow()
    expect(() => checkInTheirFamilies([hashOp], [at('hmac/hash.op.ts')], ['hash', 'hmac'], root)).toThrow(
      /declares op hash of family hash, outside src\/ops\/hash\//,
    )
    // a directory whose name starts with the family's is not the family's
    expect(() => checkInTheirFamilies([hashOp], [at('hashes/hash.op.ts')], ['hash'], root)).toThrow(
      /outside src\/ops\/hash\//,
    )
    expect(() => checkInTheirFamilies([hashOp], [at('hash/hash.op.ts')], ['hash', 'hmac'], root)).toThrow(
      'src/ops/hmac/ declares no operation',
    )
  })

  it('the admin CLI loads no op: its families and plans come from the names alone', () => {
    // a load hook that names, on stderr, every op module the process loads
    const hook =
      'data:text/javascript,import{registerHooks}from"node:module";registerHooks({load(u,c,n){' +
      'if(/\\/src\\/ops\\/.*\\.op\\.ts$/.test(u))process.stderr.write("op module "+u+"\\n");return n(u,c)}})'
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', hook, ...args], { cwd: ROOT, encoding: 'utf8' })
    const cli = run(['src/main/admin-cli.ts', 'keys', 'create', '--help'])
    expect(cli.status).toBe(0)
    expect(cli.stdout).toContain(`endpoint families the key may call: ${FAMILIES.join(', ')}`)
    expect(cli.stdout).toMatch(/^Usage: anvil-admin keys create/)
    expect(cli.stderr).toBe('')
    const plans = run(['src/main/admin-cli.ts', 'workspaces', 'create', '--help'])
    expect(plans.stdout).toContain('free|pro|business')
    expect(plans.stderr).toBe('')
    // the hook sees the ops where they are loaded
    const catalog = run(['--input-type=module', '-e', 'await import("./src/ops/catalog.ts")'])
    expect(catalog.stderr).toMatch(/op module .*\/src\/ops\/hash\/hash\.op\.ts/)
  })
})
