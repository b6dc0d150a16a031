import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../fixtures/conformance/', import.meta.url))
const SUITES = [
  'json-test-suite',
  'wpt-url',
  'json-patch',
  'json-schema',
  'jsonpath',
  'yaml-test-suite',
  'toml-test',
  'passlib',
  'phc-winner-argon2',
  'pyca-bcrypt',
  'base58',
  'jose-cookbook',
  'zstd',
  'brotli',
]

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [relative(ROOT, join(dir, e.name))],
  )
}

// The vendored suites are the published bytes: an edit (a formatter, an EOL conversion, a "fix" to make a
// case pass) or a lost file would quietly change what conformance means. SHA256SUMS pins them all.
describe('vendored conformance suites', () => {
  const listed = new Map(
    readFileSync(join(ROOT, 'SHA256SUMS'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const [hash, path] = line.split(/\s+\*?/, 2) as [string, string]
        return [path, hash] as const
      }),
  )

  it('every file is listed, with its licence, and nothing listed is missing', () => {
    const present = SUITES.flatMap((s) => filesUnder(join(ROOT, s))).sort()
    expect(present).toEqual([...listed.keys()].sort())
    expect(present).toEqual(
      expect.arrayContaining([
        'json-test-suite/LICENSE',
        'wpt-url/LICENSE.md',
        'json-patch/LICENSE',
        'json-schema/LICENSE',
        'jsonpath/LICENSE',
        'yaml-test-suite/License',
        'toml-test/LICENSE',
        'passlib/LICENSE',
        'phc-winner-argon2/LICENSE',
        'pyca-bcrypt/LICENSE',
        'base58/LICENSE.md',
        'jose-cookbook/LICENSE',
        'zstd/LICENSE',
        'brotli/LICENSE',
      ]),
    )
    expect(present.filter((p) => p.startsWith('json-test-suite/test_parsing/')).length).toBe(318)
    // toml-test: its TOML 1.0.0 list and exactly the files it names
    const listed10 = readFileSync(join(ROOT, 'toml-test/tests/files-toml-1.0.0'), 'utf8').trim().split('\n')
    expect(present.filter((p) => p.startsWith('toml-test/tests/')).sort()).toEqual(
      ['toml-test/tests/files-toml-1.0.0', ...listed10.map((f) => `toml-test/tests/${f}`)].sort(),
    )
  })

  it('every file has the bytes it was vendored with', () => {
    const changed = [...listed].filter(
      ([path, hash]) =>
        createHash('sha256')
          .update(readFileSync(join(ROOT, path)))
          .digest('hex') !== hash,
    )
    expect(changed.map(([path]) => path)).toEqual([])
  })

  it("the WPT licence is web-platform-tests' 3-Clause BSD text, and the provenance names a commit", () => {
    const licence = readFileSync(join(ROOT, 'wpt-url/LICENSE.md'), 'utf8')
    expect(licence).toMatch(/^# The 3-Clause BSD License\n\nCopyright © web-platform-tests contributors\n/)
    for (const clause of [
      '1. Redistributions of source code must retain the above copyright notice',
      '2. Redistributions in binary form must reproduce the above copyright notice',
      '3. Neither the name of the copyright holder nor the names of its contributors may be used',
      'THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"',
    ]) {
      expect(licence).toContain(clause)
    }
    const provenance = readFileSync(join(ROOT, 'PROVENANCE.md'), 'utf8')
    for (const file of ['urltestdata.json', 'setters_tests.json']) {
      expect(provenance).toMatch(new RegExp(`\`${file.replace('.', '\\.')}\` \\| .* at \`[0-9a-f]{40}\``))
    }
  })
})
