import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { okEnvelope } from '../../lib/envelope.ts'
import type { Catalog } from '../../ops/catalog.ts'
import type { OpExample } from '../../ops/define.ts'

// The worked examples of docs/examples/*.md are the one source of the OpenAPI document's examples, and
// test/http/openapi/examples.test.ts runs each against a gateway. An example is a ```sh block holding one
// curl command, followed by a ```json block with the answer; the paragraph before the curl block is its
// summary. In the answer, a string ending in "…" stands for any string starting with what precedes it
// ("job_…"), and "…" alone for any value: ids, timestamps and request ids, which differ on every run.
export interface DocExample {
  file: string
  summary: string
  method: string
  // path and query string, as written ($VARIABLES left in)
  path: string
  headers: Record<string, string>
  body: string | undefined
  response: unknown
}

export const VOLATILE = '…'

// The part of a family's page written from its ops' descriptors (scripts/docs-examples.ts): skipped here,
// since the document takes those examples from the descriptors themselves (opExamples).
export const OPS_EXAMPLES_BEGIN =
  '<!-- examples: written from the ops (src/ops/**/*.op.ts) by `node scripts/docs-examples.ts` -->'
export const OPS_EXAMPLES_END = '<!-- end of the ops\u2019 examples -->'

function withoutOpsExamples(markdown: string): string {
  const begin = markdown.indexOf(OPS_EXAMPLES_BEGIN)
  const end = markdown.indexOf(OPS_EXAMPLES_END)
  if (begin < 0 || end < begin) return markdown
  return markdown.slice(0, begin) + markdown.slice(end + OPS_EXAMPLES_END.length)
}

// An example's whole answer, as the pages show it: the one success envelope (src/lib/envelope.ts) around
// its data, the error envelope, or the raw bytes' text.
function responseOf(example: OpExample<unknown>): unknown {
  if (example.bytes !== undefined) return example.bytes
  if (example.error !== undefined) return { error: example.error }
  return JSON.parse(okEnvelope(JSON.stringify(example.data)))
}

// The worked examples the ops declare (OpDescriptor.examples, src/ops/define.ts), as the pages' examples
// are read: a request (JSON body, or the text of a raw body) and the whole answer.
export function opExamples(catalog: Catalog): DocExample[] {
  return catalog.ops.flatMap((op) =>
    op.examples.map((example) => {
      const query = example.query ? `?${new URLSearchParams(example.query)}` : ''
      const raw = example.raw !== undefined
      return {
        file: `${op.family}.md`,
        summary: example.summary,
        method: 'POST',
        path: `${example.path ?? op.http.path}${query}`,
        headers: {
          authorization: 'Bearer $ANVIL_KEY',
          'content-type': raw ? 'application/octet-stream' : 'application/json',
          ...Object.fromEntries(Object.entries(example.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
        },
        body: raw ? example.raw : JSON.stringify(example.body ?? {}),
        response: responseOf(example),
      }
    }),
  )
}

const BLOCK = /```(sh|json)\n([\s\S]*?)```/g

export function parseExamples(file: string, markdown: string): DocExample[] {
  const out: DocExample[] = []
  const blocks = [...markdown.matchAll(BLOCK)]
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!
    const next = blocks[i + 1]
    if (block[1] !== 'sh' || next?.[1] !== 'json') continue
    const words = shellWords(block[2]!)
    if (words[0] !== 'curl') continue
    // a block of k curl commands is answered by k lines of JSON, in order
    const commands: string[][] = []
    for (const w of words) {
      if (w === 'curl') commands.push([w])
      else commands.at(-1)!.push(w)
    }
    const text = next[2]!
    const answers = commands.length === 1 ? [text] : text.split('\n').filter((l) => l.trim() !== '')
    if (answers.length !== commands.length) {
      throw new Error(`${file}: ${commands.length} curl commands but ${answers.length} answers`)
    }
    const summary = summaryBefore(markdown, block.index ?? 0)
    commands.forEach((command, n) => {
      const request = curlRequest(command)
      if (!request) return
      let response: unknown
      try {
        response = JSON.parse(answers[n]!)
      } catch (err) {
        throw new Error(`${file}: the answer to "${command.join(' ').slice(0, 80)}" is not JSON`, {
          cause: err,
        })
      }
      out.push({ file, summary, ...request, response })
    })
    i++
  }
  return out
}

// the last paragraph before the block, without its closing colon
function summaryBefore(markdown: string, at: number): string {
  const before = markdown
    .slice(0, at)
    .replace(/```[\s\S]*?```/g, '')
    .trimEnd()
  const paragraph = before.split(/\n\s*\n/).pop() ?? ''
  if (paragraph.startsWith('#')) return ''
  return paragraph.replace(/\s+/g, ' ').replace(/:$/, '').trim()
}

function curlRequest(words: string[]): Omit<DocExample, 'file' | 'summary' | 'response'> | undefined {
  let method: string | undefined
  let url: string | undefined
  let body: string | undefined
  const headers: Record<string, string> = {}
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!
    if (w === '-X' || w === '--request') method = words[++i]
    else if (w === '-H' || w === '--header') {
      const h = words[++i] ?? ''
      const colon = h.indexOf(':')
      if (colon > 0) headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim()
    } else if (w === '-d' || w === '--data' || w === '--data-raw' || w === '--data-binary') body = words[++i]
    else if (w === '--cacert' || w === '-o' || w === '-w') i++
    else if (/^https?:\/\//.test(w)) url = w
  }
  if (!url) return undefined
  const parsed = /^https?:\/\/[^/]+(\/.*)$/.exec(url)
  return {
    method: (method ?? (body === undefined ? 'GET' : 'POST')).toUpperCase(),
    path: parsed?.[1] ?? '/',
    headers,
    body,
  }
}

// POSIX shell words, as far as the examples use them: '…', "…" (with \" and \$ kept literal), \newline
function shellWords(source: string): string[] {
  const words: string[] = []
  let word: string | undefined
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!
    if (c === '\\' && source[i + 1] === '\n') {
      i++
      continue
    }
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word)
      word = undefined
      continue
    }
    word ??= ''
    if (c === '$' && source[i + 1] === "'") {
      // bash's $'…': the escapes the examples use
      let j = i + 2
      for (; j < source.length && source[j] !== "'"; j++) {
        if (source[j] === '\\') {
          const e = source[++j] ?? ''
          word += e === 'n' ? '\n' : e === 't' ? '\t' : e
        } else word += source[j]
      }
      i = j
    } else if (c === "'") {
      const end = source.indexOf("'", i + 1)
      word += source.slice(i + 1, end)
      i = end
    } else if (c === '"') {
      let j = i + 1
      for (; j < source.length && source[j] !== '"'; j++) {
        if (source[j] === '\\' && /["\\$`]/.test(source[j + 1] ?? '')) j++
        word += source[j]
      }
      i = j
    } else if (c === '\\') word += source[++i] ?? ''
    else word += c
  }
  if (word !== undefined) words.push(word)
  return words
}

export async function loadExamples(dir: string): Promise<DocExample[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.md')).sort()
  const out: DocExample[] = []
  for (const f of files)
    out.push(...parseExamples(f, withoutOpsExamples(await readFile(join(dir, f), 'utf8'))))
  return out
}

export interface RouteKey {
  method: string
  url: string
}

// the route an example calls: static segments win over parameters, as in Fastify's router
export function routeOf<R extends RouteKey>(
  routes: readonly R[],
  example: Pick<DocExample, 'method' | 'path'>,
): { route: R; params: Record<string, string>; query: URLSearchParams } | undefined {
  const [pathname = '', search = ''] = example.path.split('?')
  const segments = pathname.split('/')
  let best: { route: R; params: Record<string, string>; score: number } | undefined
  for (const route of routes) {
    if (route.method !== example.method) continue
    const pattern = route.url.split('/')
    if (pattern.length !== segments.length) continue
    const params: Record<string, string> = {}
    let score = 0
    const ok = pattern.every((p, i) => {
      if (p.startsWith(':')) {
        params[p.slice(1)] = decodeURIComponent(segments[i]!)
        return segments[i] !== ''
      }
      score++
      return p === segments[i]
    })
    if (ok && (!best || score > best.score)) best = { route, params, score }
  }
  return best && { route: best.route, params: best.params, query: new URLSearchParams(search) }
}

// docs/examples/ of this checkout (the Dockerfile copies it beside src/)
export const EXAMPLES_DIR = new URL('../../../docs/examples/', import.meta.url).pathname
