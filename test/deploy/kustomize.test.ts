import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parseAllDocuments } from 'yaml'
import { KustomizeError, kustomizeBuild } from './kustomize.ts'

// The test loader (kustomize.ts) against kustomize itself. Each case under fixtures/kustomize/ is a small
// kustomization using one feature of the subset; expected.yaml is what `kustomize build` printed for it
// (kustomize v5.5.0, as `kubectl kustomize` of kubectl v1.32.4, 2026-11-28), expected-error.txt a phrase of
// the error it gave. Where a kustomize (or kubectl) is on PATH, every case, and every overlay of
// deploy/kubernetes/, is also built by it and compared, so a recorded output cannot go stale unnoticed.

const FIXTURES = fileURLToPath(new URL('./fixtures/kustomize/', import.meta.url))
const OVERLAYS = fileURLToPath(new URL('../../deploy/kubernetes/overlays/', import.meta.url))

function cases(dir: string): string[] {
  const here =
    existsSync(join(dir, 'kustomization.yaml')) &&
    (existsSync(join(dir, 'expected.yaml')) || existsSync(join(dir, 'expected-error.txt')))
  const below = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => cases(join(dir, e.name)))
  return here ? [dir, ...below] : below
}

function yamlDocs(text: string): unknown[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as unknown)
    .filter((d) => d !== null)
}

// `kustomize build` or `kubectl kustomize`, whichever is on PATH
function realKustomize(): ((dir: string) => { out: string; err: string; ok: boolean }) | undefined {
  for (const [bin, args] of [
    ['kustomize', ['build']],
    ['kubectl', ['kustomize']],
  ] as const) {
    if (spawnSync(bin, ['version'], { encoding: 'utf8' }).error) continue
    return (dir) => {
      const r = spawnSync(bin, [...args, dir], { encoding: 'utf8' })
      return { out: r.stdout, err: r.stderr, ok: r.status === 0 }
    }
  }
  return undefined
}

describe('the kustomize subset loader', () => {
  const all = cases(FIXTURES)

  it('has a case for each feature it claims', () => {
    expect(all.map((c) => relative(FIXTURES, c)).sort()).toEqual([
      'base-dir',
      'components/overlay',
      'errors/component-in-resources',
      'errors/duplicate-id',
      'errors/failed-test-op',
      'errors/file-outside-root/inner',
      'errors/kustomization-in-components',
      'images',
      'namespace',
      'order',
      'patches',
    ])
  })

  for (const dir of all) {
    const name = relative(FIXTURES, dir)
    if (existsSync(join(dir, 'expected.yaml'))) {
      it(`builds ${name} as kustomize did, in kustomize's order`, () => {
        expect(kustomizeBuild(dir)).toEqual(yamlDocs(readFileSync(join(dir, 'expected.yaml'), 'utf8')))
      })
    } else {
      it(`refuses ${name} as kustomize did`, () => {
        const phrase = readFileSync(join(dir, 'expected-error.txt'), 'utf8').trim()
        expect(() => kustomizeBuild(dir)).toThrow(KustomizeError)
        expect(() => kustomizeBuild(dir)).toThrow(phrase)
      })
    }
  }

  it('refuses what it does not implement, and a patch that would change nothing', () => {
    const dir = join(FIXTURES, '..', 'kustomize-refused')
    // each case is a folder (LICENSE.md sits beside them)
    const cases = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory())
    expect(cases.length).toBeGreaterThan(0)
    for (const { name: c } of cases) {
      const phrase = readFileSync(join(dir, c, 'expected-error.txt'), 'utf8').trim()
      expect(() => kustomizeBuild(join(dir, c)), c).toThrow(phrase)
    }
  })

  const kustomize = realKustomize()
  it.skipIf(!kustomize)('gives what the kustomize on PATH gives, for every case and every overlay', () => {
    const overlays = readdirSync(OVERLAYS).map((o) => join(OVERLAYS, o))
    for (const dir of [...all, ...overlays]) {
      const real = kustomize!(dir)
      if (existsSync(join(dir, 'expected-error.txt'))) {
        expect(real.ok, dir).toBe(false)
        expect(real.err, dir).toContain(readFileSync(join(dir, 'expected-error.txt'), 'utf8').trim())
      } else {
        expect(real.ok, real.err).toBe(true)
        expect(kustomizeBuild(dir), dir).toEqual(yamlDocs(real.out))
      }
    }
  })
})
