// `node scripts/docs-examples.ts`: writes each op's worked examples (OpDescriptor.examples, src/ops/define.ts)
// into its family's page, docs/examples/<family>.md, between the markers below, as curl commands and their
// answers; a family without a page gets one. test/docs/examples-index.test.ts fails while a page is stale.
// The OpenAPI documents take the same examples from the descriptors themselves (src/http/openapi/examples.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { OPS_EXAMPLES_BEGIN as BEGIN, OPS_EXAMPLES_END as END } from '../src/http/openapi/examples.ts'
import { okEnvelope } from '../src/lib/envelope.ts'
import { CATALOG, type Catalog } from '../src/ops/catalog.ts'
import type { AnyOp, OpExample } from '../src/ops/define.ts'

const ROOT = new URL('../', import.meta.url)
const pageOf = (family: string) => new URL(`docs/examples/${family}.md`, ROOT)

// JSON as the pages show it: combining marks, invisible and control characters, and characters outside the
// BMP escaped (\u0301, \ud83d\udc4d), so a reader sees what is sent.
function shownJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\p{M}\p{C}]|[\u{10000}-\u{10FFFF}]/gu, (c) =>
    [...c]
      .flatMap((ch) => {
        const code = ch.codePointAt(0)!
        if (code < 0x10000) return [code]
        const v = code - 0x10000
        return [0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff)]
      })
      .map((u) => `\\u${u.toString(16).padStart(4, '0')}`)
      .join(''),
  )
}

// A shell word: single-quoted, a single quote written '\'' ; $'…' for text with line breaks.
function quoted(text: string): string {
  if (/[\n\t]/.test(text))
    return `$'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\t/g, '\\t')}'`
  return `'${text.replace(/'/g, "'\\''")}'`
}

function capitalized(header: string): string {
  return header.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase())
}

export function curlOf(op: AnyOp, example: OpExample<unknown>): string {
  const query = example.query ? `?${new URLSearchParams(example.query)}` : ''
  const url = `https://localhost:8443${example.path ?? op.http.path}${query}`
  const raw = example.raw !== undefined
  const words = [
    'curl --cacert .data/tls/cert.pem',
    query ? quoted(url) : url,
    '-H "Authorization: Bearer $ANVIL_KEY"',
    `-H 'Content-Type: application/${raw ? 'octet-stream' : 'json'}'`,
    ...Object.entries(example.headers ?? {}).map(
      ([name, value]) => `-H ${quoted(`${capitalized(name)}: ${value}`)}`,
    ),
    raw ? `--data-binary ${quoted(example.raw!)}` : `-d ${quoted(shownJson(example.body ?? {}))}`,
  ]
  return words.join(' ')
}

function answerOf(example: OpExample<unknown>): string {
  if (example.bytes !== undefined) return example.bytes
  if (example.error !== undefined) return shownJson({ error: example.error })
  return okEnvelope(shownJson(example.data))
}

// The generated part of a family's page: each op's examples, in the catalog's order.
export function renderFamily(ops: readonly AnyOp[]): string {
  const parts = [BEGIN]
  for (const op of ops) {
    for (const example of op.examples) {
      parts.push(
        '',
        `${example.summary}:`,
        '',
        '```sh',
        curlOf(op, example),
        '```',
        '',
        '```json',
        answerOf(example),
        '```',
      )
    }
  }
  parts.push('', END)
  return parts.join('\n')
}

export function families(catalog: Catalog): Map<string, AnyOp[]> {
  const byFamily = new Map<string, AnyOp[]>()
  for (const op of catalog.ops) byFamily.set(op.family, [...(byFamily.get(op.family) ?? []), op])
  return byFamily
}

// The page with its generated part as the ops say: replaced between the markers, or, on a page that has
// none, put after its title (a new family's page is its title and the part).
export function pageWithExamples(current: string | undefined, ops: readonly AnyOp[], tag: string): string {
  const block = renderFamily(ops)
  if (current === undefined) return `# ${tag} examples\n\n${block}\n`
  const begin = current.indexOf(BEGIN)
  const end = current.indexOf(END)
  if (begin >= 0 && end > begin) return current.slice(0, begin) + block + current.slice(end + END.length)
  const title = current.indexOf('\n') + 1
  return `${current.slice(0, title)}\n${block}\n${current.slice(title)}`
}

// Each family's page path and what it should hold.
export function expectedPages(catalog: Catalog = CATALOG): { path: URL; text: string; current?: string }[] {
  return [...families(catalog)].map(([family, ops]) => {
    const path = pageOf(family)
    const current = existsSync(path) ? readFileSync(path, 'utf8') : undefined
    return {
      path,
      text: pageWithExamples(current, ops, catalog.family(family).tag),
      ...(current !== undefined ? { current } : {}),
    }
  })
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const page of expectedPages()) {
    if (page.text !== page.current) {
      writeFileSync(page.path, page.text)
      process.stdout.write(`wrote ${page.path.pathname}\n`)
    }
  }
}
