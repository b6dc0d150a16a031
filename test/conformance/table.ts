import { readFileSync, writeFileSync } from 'node:fs'

// The conformance table of docs/conformance.md is written by the suites' tests: each owns a block between
// `<!-- conformance:NAME -->` and `<!-- /conformance:NAME -->`. A test compares the block with what it
// measured and fails when the page is stale; `UPDATE_CONFORMANCE=1 npx vitest run test/conformance/` writes it.

const PAGE = new URL('../../docs/conformance.md', import.meta.url)

export interface Row {
  suite: string
  commit: string
  part: string
  passed: number
  total: number
}

export function tableBlock(rows: Row[]): string {
  return [
    '| suite | commit | part | passed / total |',
    '|---|---|---|---|',
    ...rows.map(
      (r) => `| ${r.suite} | \`${r.commit.slice(0, 12)}\` | ${r.part} | ${r.passed} / ${r.total} |`,
    ),
  ].join('\n')
}

// [the block as the page has it, the block as measured]; the page rewritten first when asked to.
export function pageBlock(name: string, rows: Row[]): [string | undefined, string] {
  const open = `<!-- conformance:${name} -->\n`
  const close = `\n<!-- /conformance:${name} -->`
  const page = readFileSync(PAGE, 'utf8')
  const start = page.indexOf(open)
  const end = page.indexOf(close)
  const measured = tableBlock(rows)
  if (start < 0 || end < start) return [undefined, measured]
  if (process.env.UPDATE_CONFORMANCE === '1') {
    writeFileSync(PAGE, page.slice(0, start + open.length) + measured + page.slice(end))
    return [measured, measured]
  }
  return [page.slice(start + open.length, end), measured]
}
